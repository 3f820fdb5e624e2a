// Reduce* ops: one class, so kernels can read the resolved reduction axes.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. Axes come from
/// the `axes` attribute, or from constant input 1 (ReduceSum >= 13, others >= 18).
class ReduceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override;
  /// Sorted, non-negative reduction axes (all dims when none were given).
  const std::vector<int64_t> &axes() const { return axes_; }
  /// Empty axes with noop_with_empty_axes=1: the output is the input.
  bool isNoop() const { return noop_; }
  bool axesFromInput() const;
  std::vector<std::unique_ptr<Op>> getGradOps() override;

private:
  std::vector<int64_t> axes_;
  bool noop_ = false;
};

/// Gradient "<Type>Grad" of a Reduce op (inputs dY, X, Y; output dX of X's shape):
/// dY and Y are read in keepShape() (reduced dims of size 1) and broadcast over X.
class ReduceGradOp final : public Op {
public:
  explicit ReduceGradOp(const ReduceOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = xInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
  /// X's shape with the reduced dims set to 1 (X's shape itself for a no-op reduction).
  const Shape &keepShape() const { return keepShape_; }
  /// The forward reduced nothing (noop_with_empty_axes): dX = dY.
  bool isNoop() const { return noop_; }

private:
  TensorInfo xInfo_;
  Shape keepShape_;
  bool noop_;
};

} // namespace popart
