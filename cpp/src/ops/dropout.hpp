// Dropout (ai.onnx) and ShapedDropout (ai.graphcore), named by their kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Dropout (ai.onnx 1, 6, 7, 10, 12, 13) and ShapedDropout (ai.graphcore 1).
/// Inactive (inference): y = x, a view, and the optional mask is all true.
/// Active (a training session, or training_mode = true from opset 12):
/// y = x * m / (1 - ratio) with m ~ Bernoulli(1 - ratio), drawn per element
/// (ShapedDropout: over `shape`, broadcast to x). The draws depend on the
/// session seed, the micro-batch counter and `seedName`, so the gradient
/// dx = dy * m / (1 - ratio) regenerates m instead of storing it.
class DropoutOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool aliases(InIndex in, OutIndex out) const override { return !active_ && in == 0 && out == 0; }
  bool requiresRandomSeed() const override { return active_; }
  std::vector<std::unique_ptr<Op>> getGradOps() override;

  bool active() const { return active_; }
  float ratio() const { return ratio_; }
  /// The shape the mask is drawn over (x's shape for Dropout).
  const Shape &maskShape() const { return maskShape_; }
  /// Names the random stream; a clone (recomputation) keeps its original's.
  std::string seedName() const { return attr<Attributes::String>("seedName", outId(0)); }

private:
  bool trainingMode() const;
  bool active_ = false;
  float ratio_ = 0.5f;
  Shape maskShape_;
};

/// dx = dy * m / (1 - ratio) with the forward's mask regenerated.
class DropoutGradOp final : public Op {
public:
  explicit DropoutGradOp(const DropoutOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
  float ratio() const { return ratio_; }
  const Shape &maskShape() const { return maskShape_; }
  const std::string &seedName() const { return seedName_; }

private:
  float ratio_;
  Shape maskShape_;
  std::string seedName_;
};

} // namespace popart
