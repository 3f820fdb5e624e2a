// Softmax and LogSoftmax (ai.onnx 1, 11, 13): y = exp(x - max) / sum(exp(x - max)),
// log form y = x - max - log(sum(exp(x - max))). Opset < 13 flattens the input to
// 2D at `axis` (default 1); opset >= 13 normalises along `axis` (default -1).
#include "popart/error.hpp"
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class SoftmaxOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
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
} // namespace popart
