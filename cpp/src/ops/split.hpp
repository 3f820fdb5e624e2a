// SplitOp and SplitGradOp, named by their kernels (which read the resolved axis and sizes).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Split (ai.onnx 1, 2, 11, 13, 18): output i = x[..., o_i : o_i + split[i], ...]
/// along axis, o_i = split[0] + ... + split[i-1].
class SplitOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override { return {1}; }
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup(): the axis in [0, rank) and the size of each output.
  int64_t axis() const { return axis_; }
  const std::vector<int64_t> &splits() const { return splits_; }

private:
  std::vector<int64_t> requestedSplit() const;
  int64_t axis_ = 0;
  std::vector<int64_t> splits_;
};

/// dx = the output gradients joined along the axis (a Concat); pieces of
/// outputs the node does not have are zeros. Input k is the gradient of the
/// k-th connected output (autodiff gives zeros to outputs without a gradient).
class SplitGradOp final : public ShapeGradOp {
public:
  explicit SplitGradOp(const SplitOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  int64_t axis() const { return axis_; }
  /// The size of every forward output along the axis, and the grad input
  /// holding its gradient (-1: the output is absent, its gradient is zero).
  const std::vector<int64_t> &splits() const { return splits_; }
  const std::vector<InIndex> &pieceInputs() const { return pieceInputs_; }

private:
  int64_t axis_;
  std::vector<int64_t> splits_;
  std::vector<InIndex> pieceInputs_;
};

} // namespace popart
