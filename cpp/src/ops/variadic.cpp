// Max, Min (ai.onnx 1, 6, 8, 12, 13), Sum, Mean (1, 6, 8, 13): y = fold of f over
// 1..N inputs, numpy broadcasting from opset 8 (before: equal shapes). No gradient yet.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class VariadicOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int n = input->n();
    if (n == 0) throw error("needs at least one input");
    Shape shape = inShape(0);
    for (int i = 1; i < n; ++i) {
      if (inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} has type {}, input 0 has {}", i, inInfo(i).data_type(), inInfo(0).data_type());
      if (opid.version < 8 && inShape(i) != inShape(0))
        throw error("input {} has shape {}, input 0 has {} (broadcasting needs opset 8)", i, inShape(i), inShape(0));
      shape = npOut(shape, inShape(i));
    }
    outInfo(0) = TensorInfo(inInfo(0).dataType(), shape);
  }
};

} // namespace
POPART_REGISTER_OP(VariadicOp, onnxOp("Max", {1, 6, 8, 12, 13}), numericTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Min", {1, 6, 8, 12, 13}), numericTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Sum", {1, 6, 8, 13}), floatTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Mean", {1, 6, 8, 13}), floatTypes());
} // namespace popart
