// Hardmax (ai.onnx 1, 11, 13): y = 1 at the first maximum, 0 elsewhere. Opset < 13
// flattens the input to 2-D at `axis` (default 1) and works on rows; opset 13 works
// along the single dim `axis` (default -1). No gradient (piecewise constant).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class HardmaxOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t rank = inRank(0);
    const int64_t dflt = opid.version < 13 ? 1 : -1;
    shapeutil::normaliseAxis(attr<Attributes::Int>("axis", dflt), rank);
    outInfo(0) = inInfo(0);
  }
};

} // namespace
POPART_REGISTER_OP(HardmaxOp, onnxOp("Hardmax", {1, 11, 13}), floatTypes());
} // namespace popart
