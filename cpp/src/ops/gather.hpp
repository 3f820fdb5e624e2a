// GatherOp, named by its kernel (which reads the resolved axis).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Gather (ai.onnx 1, 11, 13): y[a.., j.., b..] = x[a.., indices[j..], b..]
/// with the indices replacing `axis`; negative indices count from the end.
class GatherOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// The gathered axis in [0, rank); valid after setup().
  int64_t axis() const { return axis_; }

private:
  int64_t axis_ = 0;
};

} // namespace popart
