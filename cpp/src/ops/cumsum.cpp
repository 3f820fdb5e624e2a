// CumSum (ai.onnx 11, 14): y[j] = sum of x[i] for i <= j along `axis` (input 1, a
// scalar read at each run); exclusive drops x[j] itself, reverse sums from the end.
// No gradient yet.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class CumSumOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &a = inInfo(1);
    if (a.dataType() != DataType::INT32 && a.dataType() != DataType::INT64)
      throw error("axis must be INT32 or INT64, not {}", a.data_type());
    if (a.nelms() != 1) throw error("axis must have one element, has shape {}", a.shape());
    if (inIsConst(1)) shapeutil::normaliseAxis(inConstInts(1)[0], inRank(0));
    for (const char *name : {"exclusive", "reverse"}) {
      auto v = attr<Attributes::Int>(name, 0);
      if (v != 0 && v != 1) throw error("attribute {}={} is not supported (expected 0 or 1)", name, v);
    }
    outInfo(0) = inInfo(0);
  }
};

} // namespace
POPART_REGISTER_OP(CumSumOp, onnxOp("CumSum", {11, 14}), numericTypes());
} // namespace popart
