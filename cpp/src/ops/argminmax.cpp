// ArgMax, ArgMin (ai.onnx 1, 11, 12, 13): INT64 index of the first (or, with
// select_last_index from opset 12, last) extreme value along `axis`; keepdims keeps
// the reduced dim as 1. No gradient (integer output).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class ArgExtremumOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t axis = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
    if (inShape(0)[axis] == 0) throw error("axis {} has size 0: there is no extreme value", axis);
    auto last = attr<Attributes::Int>("select_last_index", 0);
    if (last != 0 && last != 1) throw error("attribute select_last_index={} is not supported (expected 0 or 1)", last);
    if (last && opid.version < 12)
      throw error("select_last_index needs opset 12 (imported as version {})", opid.version);
    Shape out = inShape(0);
    if (attr<Attributes::Int>("keepdims", 1)) out[axis] = 1;
    else out.erase(out.begin() + axis);
    outInfo(0) = TensorInfo(DataType::INT64, out);
  }
};

} // namespace
POPART_REGISTER_OP(ArgExtremumOp, onnxOp("ArgMax", {1, 11, 12, 13}), numericTypes());
POPART_REGISTER_OP(ArgExtremumOp, onnxOp("ArgMin", {1, 11, 12, 13}), numericTypes());
} // namespace popart
