// Normalisation ops named by their kernels: InstanceNormalization,
// LayerNormalization, RMSNormalization, MeanVarianceNormalization, LpNormalization; NormGradOp,
// the gradient op of every normalisation family (BatchNorm, GroupNorm too).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Gradient of a normalisation op. Its inputs follow `ins` (the gradient of Y first);
/// output k is the gradient of forward input outs[k], with that input's type and shape.
/// The forward attributes are copied, so kernels read epsilon, axis, ... directly.
class NormGradOp final : public Op {
public:
  NormGradOp(const OperatorIdentifier &id, const Op &fwd, std::vector<GradInOutMapper> ins, std::map<int, int> outs);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }

private:
  std::vector<GradInOutMapper> ins_;
  std::map<int, int> outs_;
  std::map<int, TensorInfo> infos_;  // grad output -> forward input info
};

/// getGradOps() of a normalisation op: one NormGradOp; by default with inputs dY, X, scale and
/// outputs dX, dscale, dbias.
std::vector<std::unique_ptr<Op>> normGradOps(const std::string &type, const Op &fwd,
                                             std::vector<GradInOutMapper> ins = {{0, 0, GradOpInType::GradOut},
                                                                                 {1, 0, GradOpInType::In},
                                                                                 {2, 1, GradOpInType::In}},
                                             std::map<int, int> outs = {{0, 0}, {1, 1}, {2, 2}});

/// InstanceNormalization (ai.onnx 1, 6): per (n, c), y = scale_c (x - mean) / sqrt(var + eps) + B_c
/// over the spatial dims. Its gradient is GroupNormalization's with one channel per group.
class InstanceNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
};

/// LayerNormalization (17): over dims [axis, rank), y = (x - mean) * invstd * Scale + B,
/// invstd = 1 / sqrt(var + eps); optional outputs Mean and InvStdDev (dims [axis, rank) = 1).
class LayerNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t axis() const { return axis_; }  // valid after setup(), non-negative

private:
  int64_t axis_ = 0;
};

/// RMSNormalization (23): over dims [axis, rank), y = x * invrms * Scale, invrms = 1 / sqrt(mean(x^2) + eps).
class RMSNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
};

/// MeanVarianceNormalization (9, 13): y = (x - mean) / (sqrt(E[(x - mean)^2]) + 1e-9)
/// over `axes` (default 0, 2, 3).
class MeanVarianceNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
};

/// LpNormalization (1): y = x / ||x||_p along `axis`, p in {1, 2}; 0 where the norm is 0.
class LpNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t axis() const { return axis_; }
  int64_t p() const { return p_; }

private:
  int64_t axis_ = 0, p_ = 2;
};

/// LRN (1, 13) over N, C, D1, ..: y = x / (bias + alpha / size * sum_{c' in window(c)} x[c']^2)^beta,
/// window(c) = [c - floor((size-1)/2), c + ceil((size-1)/2)] within [0, C).
class LRNOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
};

} // namespace popart
