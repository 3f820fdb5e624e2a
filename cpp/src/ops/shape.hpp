// ShapeOp, named by its kernel (which reads the resolved start axis).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Shape (ai.onnx 1, 13, 15, 19, 21): y = int64(x.shape[start:end]) (start/end
/// from opset 15, clamped to [0, rank]). Reads only x's shape, never its data.
class ShapeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool readsOnlyInputInfo() const override { return true; }
  /// First reported axis; valid after setup().
  int64_t start() const { return start_; }

private:
  int64_t start_ = 0;
};

} // namespace popart
