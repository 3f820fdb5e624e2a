// Softmax and LogSoftmax (ai.onnx 1, 11, 13): y = exp(x - max) / sum(exp(x - max)),
// log form y = x - max - log(sum(exp(x - max))). Opset < 13 flattens the input to
// 2D at `axis` (default 1); opset >= 13 normalises along `axis` (default -1).
// Gradients (inputs dY, Y): dx = y (dy - sum(dy y)); log form dx = dy - e^y sum(dy).
#include "popart/error.hpp"
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

/// Its attributes say where to reduce: `axis` (>= 0) and `coerce2d` (opset < 13).
class SoftmaxGradOp final : public ElementWiseOutputGradOp {
public:
  explicit SoftmaxGradOp(const Op &fwd) : ElementWiseOutputGradOp(internalOp(fwd.opid.type + "Grad"), fwd) {
    const int64_t rank = fwd.inRank(0);
    int64_t axis = fwd.attr<Attributes::Int>("axis", fwd.opid.version >= 13 ? -1 : 1);
    attributes().setAttribute("axis", axis < 0 ? axis + rank : axis);
    attributes().setAttribute("coerce2d", Attributes::Int(fwd.opid.version < 13 ? 1 : 0));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class SoftmaxOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<SoftmaxGradOp>(*this); }
  void setup() override {
    const int64_t rank = inRank(0);
    const int64_t axis = attr<Attributes::Int>("axis", opid.version >= 13 ? -1 : 1);
    // opset < 13 also accepts axis == rank (a 2D view with an empty second dim).
    const int64_t hi = opid.version >= 13 ? rank - 1 : rank;
    if (axis < -rank || axis > hi || (rank == 0 && opid.version >= 13))
      throw error("axis {} out of range for rank {}", axis, rank);
    ElementWiseUnaryOp::setup();
  }
};

} // namespace
POPART_REGISTER_OP(SoftmaxOp, onnxOp("Softmax", {1, 11, 13}), floatTypes());
POPART_REGISTER_OP(SoftmaxOp, onnxOp("LogSoftmax", {1, 11, 13}), floatTypes());
POPART_REGISTER_OP(SoftmaxGradOp, internalOp("SoftmaxGrad"));
POPART_REGISTER_OP(SoftmaxGradOp, internalOp("LogSoftmaxGrad"));
} // namespace popart
