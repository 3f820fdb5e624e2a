// Clip (ai.onnx 1, 6, 11, 12, 13): y = min(max(x, lo), hi). Opset < 11 reads the
// `min`/`max` attributes; later opsets take optional scalar inputs 1 and 2
// (constants or run-time tensors). In-place variant: ClipInplace.
// Gradients (inputs dY, X, then min/max when given): ClipGrad dx = dy where
// lo <= x <= hi (boundaries included, as torch.clamp), else 0; for min/max inputs
// ClipMinGrad dlo = sum(dy [x < lo < hi]), ClipMaxGrad dhi = sum(dy [x > hi or lo > hi]).
#include "popart/error.hpp"
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

const char *clipGradType(InIndex arg) { return arg == 0 ? "ClipGrad" : (arg == 1 ? "ClipMinGrad" : "ClipMaxGrad"); }

/// Gradient of input `arg` (0: X, 1: min, 2: max).
class ClipGradOp final : public Op {
public:
  ClipGradOp(const Op &fwd, InIndex arg)
      : Op(internalOp(clipGradType(arg)), fwd.settings), argInfo_(fwd.inInfo(arg)), toArg_{{0, arg}} {
    attributes() = fwd.attributes();
    using G = GradOpInType;
    gradIn_ = {{0, 0, G::GradOut}, {1, 0, G::In}};
    for (InIndex i : {1, 2})
      if (fwd.hasInput(i)) gradIn_.push_back({i + 1, i, G::In});
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return gradIn_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return toArg_; }

private:
  TensorInfo argInfo_;
  std::vector<GradInOutMapper> gradIn_;
  std::map<int, int> toArg_;
};

class ClipOp final : public ElementWiseUnaryOp {
public:
  ClipOp(const OperatorIdentifier &id, const Settings &settings)
      : ElementWiseUnaryOp(id, settings), inplace_(id.type == "ClipInplace") {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    for (InIndex i : {1, 2}) {
      if (!hasInput(i)) continue;
      if (inInfo(i).nelms() != 1)
        throw error("input {} ('{}') must be a scalar, got shape {}", i, i == 1 ? "min" : "max", inShape(i));
      if (inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} ('{}') has type {}, expected {} like the input", i, i == 1 ? "min" : "max",
                    inInfo(i).data_type(), inInfo(0).data_type());
    }
    ElementWiseUnaryOp::setup();
  }
  bool aliases(InIndex in, OutIndex out) const override { return inplace_ && in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return inplace_ && in == 0; }
  std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const override {
    if (inplace_) return {};
    return {{internalOp("ClipInplace"), 10.0f}};
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    const DataType t = inInfo(0).dataType();
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE) return v;
    for (InIndex i : {0, 1, 2})
      if (hasInput(i)) v.push_back(std::make_unique<ClipGradOp>(*this, i));
    return v;
  }
  std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const override {
    auto op = std::make_unique<ClipOp>(id, settings);
    op->attributes() = attributes();
    return op;
  }

private:
  bool inplace_;
};

} // namespace
POPART_REGISTER_OP(ClipOp, onnxOp("Clip", {1, 6, 11, 12, 13}), numericTypes());
POPART_REGISTER_OP(ClipOp, internalOp("ClipInplace"));
POPART_REGISTER_OP(ClipGradOp, internalOp("ClipGrad"));
POPART_REGISTER_OP(ClipGradOp, internalOp("ClipMinGrad"));
POPART_REGISTER_OP(ClipGradOp, internalOp("ClipMaxGrad"));
} // namespace popart
