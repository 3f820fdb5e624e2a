// BatchNormalization (ai.onnx 6, 7, 9, 14, 15; ai.graphcore 1), per channel c (per [C, spatial...] element
// with spatial=0 before opset 9):  Y = scale * (X - m) / sqrt(v + epsilon) + B.
// Inference: m, v are the running statistics (inputs mean, var). Training: m, v are the batch mean and
// (biased) batch variance, and the running statistics become  r = r * momentum + batch * (1 - momentum).
// The ai.onnx form blends the biased variance (as the ONNX definition); the ai.graphcore form the unbiased
// one (M / (M - 1) times, M = N * spatial), as PyTorch. In a TrainingSession the mean and var Variables are
// updated in place each step; optional outputs 1, 2 hold the new running statistics, 3, 4 (opset < 14) the
// batch mean and biased batch variance.
// Training mode: the opset >= 14 attribute training_mode when present; never with opset 6 is_test=1;
// otherwise whenever there are outputs beyond Y or the IR is being trained (PopART: a BatchNormalization
// in a TrainingSession trains, so an absent training_mode does not mean inference there).
// Gradient (BatchNormalizationGrad), xh = (X - m) / sqrt(v + eps), sums over the M values of a channel:
//   dB = sum(dY), dscale = sum(dY * xh); training dX = scale / sqrt(v + eps) / M * (M dY - dB - xh dscale),
//   inference dX = scale / sqrt(v + eps) * dY. The running statistics get no gradient.
#include "ops/batchnorm.hpp"
#include "ops/normalization.hpp"
#include "popart/error.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"

namespace popart {

bool BatchNormOp::trainingMode() const {
  if (opid.version >= 14) {
    const int64_t mode = attr<Attributes::Int>("training_mode", -1);
    if (mode == 0 || mode == 1) return mode == 1;
    if (mode != -1) throw error("attribute training_mode={} must be 0 or 1", mode);
  }
  if (opid.version == 6 && attr<Attributes::Int>("is_test", 0) != 0) return false;
  return output->n() > 1 || getIr().isTraining();
}

void BatchNormOp::checkParams(const TensorInfo &x, int64_t spatial) const {
  const Shape param = spatial ? Shape{x.dim(1)} : Shape(x.shape().begin() + 1, x.shape().end());
  static const char *names[] = {"scale", "B", "mean", "var"};
  for (int i = 1; i <= 4; ++i) {
    if (!hasInput(i)) throw error("input {} ({}) is required", i, names[i - 1]);
    const auto &p = inInfo(i);
    bool ok = p.shape() == param || (!spatial && p.nelms() == TensorInfo(x.dataType(), param).nelms());
    if (!ok) throw error("input {} {} must have shape {}", names[i - 1], p.shape(), param);
    if (p.dataType() != x.dataType() && opid.version < 15)
      throw error("input {} has type {}, X has {}", names[i - 1], p.data_type(), x.data_type());
  }
  if (inInfo(3).dataType() != inInfo(4).dataType())
    throw error("inputs mean ({}) and var ({}) must have the same type", inInfo(3).data_type(), inInfo(4).data_type());
}

void BatchNormOp::setup() {
  const auto &x = inInfo(0);
  if (x.rank() < 2) throw error("BatchNormalization input X must have rank >= 2, got {}", x.shape());
  const int64_t spatial = opid.version < 9 && opid.domain != "ai.graphcore" ? attr<Attributes::Int>("spatial", 1) : 1;
  checkParams(x, spatial);
  const bool train = training_ = trainingMode();
  const int maxOut = !train ? 1 : opid.version >= 14 ? 3 : 5;
  if (output->maxIndex() > maxOut)
    throw error("{} outputs requested; {} mode has at most {} (Y{})", output->maxIndex(),
                train ? "training" : "inference", maxOut, maxOut == 1 ? "" : maxOut == 3 ? ", mean, var"
                                                                     : ", mean, var, saved_mean, saved_var");
  const float momentum = attr<Attributes::Float>("momentum", 0.9f);
  if (!(momentum >= 0.f && momentum <= 1.f)) throw error("attribute momentum={} must be in [0, 1]", momentum);
  outInfo(0) = x;
  for (OutIndex o = 1; o < 5; ++o)
    if (hasOutput(o)) outInfo(o) = inInfo(o < 3 ? o + 2 : o);
  auto isVariable = [&](InIndex i) { return inTensor(i)->tensorType() == TensorType::Variable; };
  updatesVariables_ = train && getIr().isTraining() && isVariable(3) && isVariable(4);
}

std::vector<std::unique_ptr<Op>> BatchNormOp::getGradOps() {
  std::vector<GradInOutMapper> ins{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}};
  if (!training_)  // inference: normalised with the running statistics
    ins.insert(ins.end(), {{3, 3, GradOpInType::In}, {4, 4, GradOpInType::In}});
  return normGradOps("BatchNormalizationGrad", *this, std::move(ins));
}

POPART_REGISTER_OP(BatchNormOp, onnxOp("BatchNormalization", {6, 7, 9, 14, 15}), floatTypes());
POPART_REGISTER_OP(BatchNormOp, graphcoreOp("BatchNormalization", {1}), floatTypes());
POPART_REGISTER_OP(NormGradOp, internalOp("BatchNormalizationGrad"));
} // namespace popart
