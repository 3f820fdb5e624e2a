// Dropout (ai.onnx 1, 6, 7, 10, 12, 13) at inference: y = x (a view of the
// input) and the optional mask output is all true (all 1 of the input's type
// before opset 10). `ratio` is an attribute before opset 12, an input after.
// Gradient: dx = dy (ReshapeGrad, a view).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"

namespace popart {
namespace {

class DropoutOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (opid.version < 12) {
      float ratio = attr<Attributes::Float>("ratio", 0.5f);
      if (!(ratio >= 0.0f && ratio < 1.0f)) throw error("attribute 'ratio' = {} must be in [0, 1)", ratio);
    } else if (hasInput(1) && inInfo(1).nelms() != 1) {
      throw error("input 1 ('ratio') must be a scalar, got shape {}", inShape(1));
    }
    outInfo(0) = inInfo(0);
    if (hasOutput(1))
      outInfo(1) = TensorInfo(opid.version >= 10 ? DataType::BOOL : inInfo(0).dataType(), inShape(0));
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReshapeGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(DropoutOp, onnxOp("Dropout", {1, 6, 7, 10, 12, 13}), floatTypes());
} // namespace popart
