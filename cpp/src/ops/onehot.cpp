// OneHot (ai.onnx 9, 11): y has a new dim of size `depth` at `axis`; y = values[1]
// where the position equals the index (negative indices count from depth), values[0]
// elsewhere. depth must be a constant. Gradient (OneHotGrad, for `values` only):
// d on = sum of dy at the hot positions, d off = sum(dy) - d on; indices and depth get none.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"
#include <cmath>

namespace popart {
namespace {

/// Gradient of `values` (input 2). Inputs: dY, indices; keeps the forward's axis attribute.
class OneHotGradOp final : public ShapeGradOp {
public:
  explicit OneHotGradOp(const Op &fwd)
      : ShapeGradOp(internalOp("OneHotGrad"), fwd, 2, {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}}) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class OneHotOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1}; }
  void setup() override {
    if (inInfo(1).nelms() != 1) throw error("depth must have one element, has shape {}", inShape(1));
    if (inInfo(2).nelms() != 2) throw error("values must have two elements [off, on], has shape {}", inShape(2));
    const double depth = inConstFloats(1)[0];
    if (!(depth >= 1)) throw error("depth must be at least 1, is {}", depth);
    const int64_t outRank = inRank(0) + 1;
    const int64_t axis = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", -1), outRank);
    Shape out = inShape(0);
    out.insert(out.begin() + axis, static_cast<int64_t>(std::floor(depth)));
    outInfo(0) = TensorInfo(inInfo(2).dataType(), out);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<OneHotGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(OneHotOp, onnxOp("OneHot", {9, 11}), numericTypes());
POPART_REGISTER_OP(OneHotGradOp, internalOp("OneHotGrad"));
} // namespace popart
