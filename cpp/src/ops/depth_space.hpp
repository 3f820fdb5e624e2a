// DepthToSpace / SpaceToDepth, named by their shared kernel: both are a
// reshape of the input to 6-d, a transpose, and a reshape to the output.
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// DepthToSpace (ai.onnx 1, 11, 13; modes DCR and CRD) and SpaceToDepth (1, 13)
/// on NCHW tensors: y = reshape(transpose(reshape(x, view()), perm()), out shape).
class BlockRearrangeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup(): the 6-d view of the input and the transpose applied to it.
  const Shape &view() const { return view_; }
  const std::vector<int64_t> &perm() const { return perm_; }

private:
  Shape view_;
  std::vector<int64_t> perm_;
};

/// The inverse rearrangement: dx = reshape(transpose(reshape(dy, view()), perm()), x's shape)
/// with view() the forward's transposed view and perm() the inverse permutation.
class BlockRearrangeGradOp final : public ShapeGradOp {
public:
  explicit BlockRearrangeGradOp(const BlockRearrangeOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const Shape &view() const { return view_; }
  const std::vector<int64_t> &perm() const { return perm_; }

private:
  Shape view_;
  std::vector<int64_t> perm_;
};

} // namespace popart
