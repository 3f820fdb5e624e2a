// DftOp's resolved geometry, read by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// x seen as [outer, n, inner, 1 or 2] around the transformed axis; the
/// transform has length `length`; the output has `outLen` entries on the axis.
struct DftGeometry {
  int64_t outer = 1, n = 1, inner = 1, inComponents = 1, length = 1, outLen = 1;
  bool inverse = false, onesided = false;
};

/// DFT (ai.onnx 17, 20): see dft.cpp.
class DftOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1, 2}; }
  void setup() override;
  const DftGeometry &geometry() const { return geometry_; }  // valid after setup()

private:
  DftGeometry geometry_;
};

} // namespace popart
