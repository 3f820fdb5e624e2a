// ConcatOp, named by its kernel (which reads the resolved axis).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Concat (ai.onnx 1, 4, 11, 13): y = inputs joined along axis.
class ConcatOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// The concatenation axis in [0, rank); valid after setup().
  int64_t axis() const { return axis_; }

private:
  int64_t axis_ = 0;
};

} // namespace popart
