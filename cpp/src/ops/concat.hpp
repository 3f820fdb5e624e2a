// ConcatOp and ConcatGradOp, named by their kernels (which read the resolved axis).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Concat (ai.onnx 1, 4, 11, 13): y = inputs joined along axis.
class ConcatOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// One ConcatGradOp per input.
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// The concatenation axis in [0, rank); valid after setup().
  int64_t axis() const { return axis_; }

private:
  int64_t axis_ = 0;
};

/// dx_i = dy[..., offset : offset + d_i, ...] along the axis (a slice of dY).
class ConcatGradOp final : public ShapeGradOp {
public:
  ConcatGradOp(const ConcatOp &fwd, InIndex i);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  int64_t axis() const { return axis_; }
  /// Start of input i along the axis of the concatenation.
  int64_t offset() const { return offset_; }

private:
  int64_t axis_, offset_ = 0;
};

} // namespace popart
