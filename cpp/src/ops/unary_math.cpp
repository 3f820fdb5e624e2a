// Element-wise unary maths (ai.onnx): Sqrt, Exp, Log, Neg, Abs, Reciprocal,
// Sigmoid, Tanh, Erf, LeakyRelu (y = x < 0 ? alpha x : x, alpha = 0.01), each
// with an in-place variant "<Type>Inplace" that reuses the forward kernel.
// Gradients "<Type>Grad": dx = dy * f'(x), f' evaluated from x.
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

const std::string kInplace = "Inplace";

class UnaryMathGradOp final : public ElementWiseNonLinearUnaryGradOp {  // inputs: dY, X
public:
  explicit UnaryMathGradOp(const Op &fwd) : ElementWiseNonLinearUnaryGradOp(internalOp(fwd.opid.type + "Grad"), fwd) {
    attributes() = fwd.attributes();  // LeakyRelu's alpha
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class UnaryMathOp final : public ElementWiseUnaryOp {
public:
  UnaryMathOp(const OperatorIdentifier &id, const Settings &settings)
      : ElementWiseUnaryOp(id, settings),
        inplace_(id.type.size() > kInplace.size() &&
                 id.type.compare(id.type.size() - kInplace.size(), kInplace.size(), kInplace) == 0) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<UnaryMathGradOp>(*this));
    return v;
  }
  bool aliases(InIndex in, OutIndex out) const override { return inplace_ && in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return inplace_ && in == 0; }
  std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const override {
    if (inplace_) return {};
    return {{internalOp(opid.type + kInplace), 10.0f}};
  }
  std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const override {
    auto op = std::make_unique<UnaryMathOp>(id, settings);
    op->attributes() = attributes();
    return op;
  }

private:
  bool inplace_;
};

std::vector<DataType> signedTypes() {
  return {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE,
          DataType::INT8,  DataType::INT16,   DataType::INT32, DataType::INT64};
}

} // namespace
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Sqrt", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Exp", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Log", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Neg", {1, 6, 13}), signedTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Abs", {1, 6, 13}), numericTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Reciprocal", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Sigmoid", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Tanh", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("Erf", {9, 13}), numericTypes());
POPART_REGISTER_OP(UnaryMathOp, onnxOp("LeakyRelu", {1, 6, 16}), floatTypes());
POPART_REGISTER_OP(UnaryMathOp, internalOp("SqrtInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("ExpInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("LogInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("NegInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("AbsInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("ReciprocalInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("SigmoidInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("TanhInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("ErfInplace"));
POPART_REGISTER_OP(UnaryMathOp, internalOp("LeakyReluInplace"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("SqrtGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("ExpGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("LogGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("NegGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("AbsGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("ReciprocalGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("SigmoidGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("TanhGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("ErfGrad"));
POPART_REGISTER_OP(UnaryMathGradOp, internalOp("LeakyReluGrad"));
} // namespace popart
