// BatchNormOp, named by its kernel (formulas in batchnorm.cpp).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// BatchNormalization (ai.onnx 6-15, ai.graphcore 1); inputs X, scale, B, mean, var.
class BatchNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool modifies(InIndex in) const override { return updatesVariables_ && (in == 3 || in == 4); }
  bool hasSideEffect() const override { return updatesVariables_; }
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup(): normalises with the batch statistics.
  bool training() const { return training_; }
  /// Valid after setup(): writes the new running statistics into the mean and var Variables.
  bool updatesVariables() const { return updatesVariables_; }
  /// The running variance blends the unbiased batch variance (ai.graphcore form).
  bool unbiasedRunningVar() const { return opid.domain == "ai.graphcore"; }

private:
  bool trainingMode() const;
  void checkParams(const TensorInfo &x, int64_t spatial) const;
  bool training_ = false, updatesVariables_ = false;
};

} // namespace popart
