// Dropout (ai.onnx 1, 6, 7, 10, 12, 13) and ShapedDropout (ai.graphcore 1).
// `ratio` is an attribute before opset 12 and a constant input (default 0.5)
// from 12. Whether an op drops: opset 12+ with a constant `training_mode`
// input follows it; otherwise it drops exactly when the session trains
// (PopART's behaviour), except Dropout-6 with is_test = 1.
// Gradients: inactive dx = dy (a view); active dx = dy * m / (1 - ratio).
#include "ops/dropout.hpp"
#include "popart/error.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"

namespace popart {

bool DropoutOp::trainingMode() const {
  if (opid.domain == Domain::ai_onnx && opid.version >= 12 && hasInput(2)) {
    auto v = inConstInts(2);
    if (v.size() != 1) throw error("input 2 ('training_mode') must be one BOOL value, got {}", v.size());
    return v[0] != 0;
  }
  if (opid.domain == Domain::ai_onnx && opid.version == 6 && attr<Attributes::Int>("is_test", 0) != 0) return false;
  return getIr().isTraining();
}

void DropoutOp::setup() {
  const bool ratioInput = opid.domain == Domain::ai_onnx && opid.version >= 12;
  if (!ratioInput) {
    ratio_ = attr<Attributes::Float>("ratio", 0.5f);
  } else if (hasInput(1)) {
    if (inInfo(1).nelms() != 1) throw error("input 1 ('ratio') must be a scalar, got shape {}", inShape(1));
    // A runtime ratio only matters when the op drops.
    if (inIsConst(1) || trainingMode()) ratio_ = static_cast<float>(inConstFloats(1).at(0));
  }
  if (!(ratio_ >= 0.0f && ratio_ < 1.0f)) throw error("'ratio' = {} must be in [0, 1)", ratio_);
  maskShape_ = inShape(0);
  if (opid.type == "ShapedDropout") {
    maskShape_ = attr<Attributes::Ints>("shape");
    const Shape &x = inShape(0);
    bool ok = maskShape_.size() <= x.size();
    for (size_t d = 0; ok && d < maskShape_.size(); ++d) {
      int64_t m = maskShape_[maskShape_.size() - 1 - d];
      ok = m == 1 || m == x[x.size() - 1 - d];
    }
    if (!ok)
      throw error("attribute 'shape' {} does not broadcast to the input shape {}", maskShape_, inShape(0));
  }
  active_ = trainingMode() && ratio_ > 0.0f;
  if (active_ && !attributes().hasAttribute("seedName")) attributes().setAttribute("seedName", outId(0));
  outInfo(0) = inInfo(0);
  if (hasOutput(1))
    outInfo(1) = TensorInfo(opid.version >= 10 ? DataType::BOOL : inInfo(0).dataType(), inShape(0));
}

std::vector<std::unique_ptr<Op>> DropoutOp::getGradOps() {
  if (!active_) return gradOps<ReshapeGradOp>(*this);
  std::vector<std::unique_ptr<Op>> ops;
  ops.push_back(std::make_unique<DropoutGradOp>(*this));
  return ops;
}

DropoutGradOp::DropoutGradOp(const DropoutOp &fwd)
    : Op(internalOp("DropoutGrad"), fwd.settings), ratio_(fwd.ratio()), maskShape_(fwd.maskShape()),
      seedName_(fwd.seedName()) {}

const std::vector<GradInOutMapper> &DropoutGradOp::gradInputInfo() const {
  static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}};
  return info;
}

const std::map<int, int> &DropoutGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> m{{0, 0}};
  return m;
}

POPART_REGISTER_OP(DropoutOp, onnxOp("Dropout", {1, 6, 7, 10, 12, 13}), floatTypes());
POPART_REGISTER_OP(DropoutOp, graphcoreOp("ShapedDropout", {1}), floatTypes());
POPART_REGISTER_OP(DropoutGradOp, internalOp("DropoutGrad"));
} // namespace popart
