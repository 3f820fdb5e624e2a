// Element-wise unary ops y = f(x; attributes), one class for all: rounding,
// trigonometric/hyperbolic, activations and logic predicates. Each op whose output
// type is its input type has an in-place variant "<Type>Inplace" (same kernel).
// Gradients "<Type>Grad" (inputs dY, X): dx = dy * f'(x) for floating inputs of every
// op but the logic predicates; rounding and Sign give 0 (kernels/unary_fn_grad.cpp).
#include "popart/error.hpp"
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"
#include <set>

namespace popart {
namespace {

const std::string kUnaryInplace = "Inplace";

bool unaryIsInplace(const std::string &type) {
  const size_t n = kUnaryInplace.size();
  return type.size() > n && type.compare(type.size() - n, n, kUnaryInplace) == 0;
}

bool unaryHasGrad(const std::string &type) {
  static const std::set<std::string> none{"Not", "BitwiseNot", "IsNaN", "IsInf"};
  return none.count(type) == 0;
}

/// One class for every "<Type>Grad"; the forward's attributes select the formula.
class UnaryFnGradOp final : public ElementWiseNonLinearUnaryGradOp {
public:
  UnaryFnGradOp(const Op &fwd, const std::string &type)
      : ElementWiseNonLinearUnaryGradOp(internalOp(type + "Grad"), fwd) {
    attributes() = fwd.attributes();
    if (fwd.opid.domain == Domain::ai_graphcore && fwd.opid.type == "Gelu")  // the tanh form
      attributes().setAttribute("approximate", std::string("tanh"));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class UnaryFnOp final : public ElementWiseUnaryOp {
public:
  UnaryFnOp(const OperatorIdentifier &id, const Settings &settings)
      : ElementWiseUnaryOp(id, settings), inplace_(unaryIsInplace(id.type)) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }

  void setup() override {
    outInfo(0) = inInfo(0);
    if (opid.type == "IsNaN" || opid.type == "IsInf") outInfo(0) = TensorInfo(DataType::BOOL, inShape(0));
    checkAttributes();
  }

  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    std::string type = opid.type;
    if (inplace_) type.resize(type.size() - kUnaryInplace.size());
    const DataType t = inInfo(0).dataType();
    const bool floating = t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE;
    if (floating && unaryHasGrad(type)) v.push_back(std::make_unique<UnaryFnGradOp>(*this, type));
    return v;
  }
  bool aliases(InIndex in, OutIndex out) const override { return inplace_ && in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return inplace_ && in == 0; }
  std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const override {
    if (inplace_ || outInfo(0).dataType() != inInfo(0).dataType()) return {};
    return {{internalOp(opid.type + kUnaryInplace), 10.0f}};
  }
  std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const override {
    auto op = std::make_unique<UnaryFnOp>(id, settings);
    op->attributes() = attributes();
    if (opid.domain == Domain::ai_graphcore && opid.type == "Gelu")  // ai.graphcore Gelu is the tanh form
      op->attributes().setAttribute("approximate", std::string("tanh"));
    return op;
  }

private:
  void checkAttributes() const {
    const std::string &t = opid.type;
    if ((t == "Gelu" || t == "GeluInplace") && opid.domain == Domain::ai_onnx) {
      auto a = attr<Attributes::String>("approximate", "none");
      if (a != "none" && a != "tanh")
        throw error("attribute approximate='{}' is not supported (expected 'none' or 'tanh')", a);
    }
    if ((t == "Celu" || t == "CeluInplace") && attr<Attributes::Float>("alpha", 1.0f) == 0.0f)
      throw error("attribute alpha must not be 0 (Celu divides by alpha)");
  }
  bool inplace_;
};

} // namespace

// Rounding and sign.
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Sign", {9, 13}), numericTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Floor", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Ceil", {1, 6, 13}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Round", {11}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Round"), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("NearbyInt"), floatTypes());
// Trigonometric, hyperbolic, exp/log variants.
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Sin", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Cos", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Tan", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Asin", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Acos", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Atan", {7}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Sinh", {9}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Cosh", {9}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Asinh", {9}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Acosh", {9}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Atanh", {9}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Expm1"), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Log1p"), floatTypes());
// Activations.
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Elu", {1, 6}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Selu", {1, 6}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Celu", {12}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("HardSigmoid", {1, 6}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("HardSwish", {14}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Softsign", {1}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Softplus", {1}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("ThresholdedRelu", {10}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Shrink", {9}), numericTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Gelu", {20}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Gelu"), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("GeluErf"), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Swish", {24}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Swish"), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Mish", {18, 22}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("Scale"), numericTypes());
// Logic and predicates.
POPART_REGISTER_OP(UnaryFnOp, onnxOp("Not", {1}), {DataType::BOOL});
POPART_REGISTER_OP(UnaryFnOp, onnxOp("BitwiseNot", {18}), intTypes());
POPART_REGISTER_OP(UnaryFnOp, graphcoreOp("BitwiseNot"), intTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("IsNaN", {9, 13, 20}), floatTypes());
POPART_REGISTER_OP(UnaryFnOp, onnxOp("IsInf", {10, 20}), floatTypes());

#define POPART_UNARY_FN_INPLACE(NAME) POPART_REGISTER_OP(UnaryFnOp, internalOp(NAME "Inplace"))
POPART_UNARY_FN_INPLACE("Sign");
POPART_UNARY_FN_INPLACE("Floor");
POPART_UNARY_FN_INPLACE("Ceil");
POPART_UNARY_FN_INPLACE("Round");
POPART_UNARY_FN_INPLACE("NearbyInt");
POPART_UNARY_FN_INPLACE("Sin");
POPART_UNARY_FN_INPLACE("Cos");
POPART_UNARY_FN_INPLACE("Tan");
POPART_UNARY_FN_INPLACE("Asin");
POPART_UNARY_FN_INPLACE("Acos");
POPART_UNARY_FN_INPLACE("Atan");
POPART_UNARY_FN_INPLACE("Sinh");
POPART_UNARY_FN_INPLACE("Cosh");
POPART_UNARY_FN_INPLACE("Asinh");
POPART_UNARY_FN_INPLACE("Acosh");
POPART_UNARY_FN_INPLACE("Atanh");
POPART_UNARY_FN_INPLACE("Expm1");
POPART_UNARY_FN_INPLACE("Log1p");
POPART_UNARY_FN_INPLACE("Elu");
POPART_UNARY_FN_INPLACE("Selu");
POPART_UNARY_FN_INPLACE("Celu");
POPART_UNARY_FN_INPLACE("HardSigmoid");
POPART_UNARY_FN_INPLACE("HardSwish");
POPART_UNARY_FN_INPLACE("Softsign");
POPART_UNARY_FN_INPLACE("Softplus");
POPART_UNARY_FN_INPLACE("ThresholdedRelu");
POPART_UNARY_FN_INPLACE("Shrink");
POPART_UNARY_FN_INPLACE("Gelu");
POPART_UNARY_FN_INPLACE("GeluErf");
POPART_UNARY_FN_INPLACE("Swish");
POPART_UNARY_FN_INPLACE("Mish");
POPART_UNARY_FN_INPLACE("Scale");
POPART_UNARY_FN_INPLACE("Not");
POPART_UNARY_FN_INPLACE("BitwiseNot");
#undef POPART_UNARY_FN_INPLACE
#define POPART_UNARY_FN_GRAD(NAME) POPART_REGISTER_OP(UnaryFnGradOp, internalOp(NAME "Grad"))
POPART_UNARY_FN_GRAD("Sign");
POPART_UNARY_FN_GRAD("Floor");
POPART_UNARY_FN_GRAD("Ceil");
POPART_UNARY_FN_GRAD("Round");
POPART_UNARY_FN_GRAD("NearbyInt");
POPART_UNARY_FN_GRAD("Sin");
POPART_UNARY_FN_GRAD("Cos");
POPART_UNARY_FN_GRAD("Tan");
POPART_UNARY_FN_GRAD("Asin");
POPART_UNARY_FN_GRAD("Acos");
POPART_UNARY_FN_GRAD("Atan");
POPART_UNARY_FN_GRAD("Sinh");
POPART_UNARY_FN_GRAD("Cosh");
POPART_UNARY_FN_GRAD("Asinh");
POPART_UNARY_FN_GRAD("Acosh");
POPART_UNARY_FN_GRAD("Atanh");
POPART_UNARY_FN_GRAD("Expm1");
POPART_UNARY_FN_GRAD("Log1p");
POPART_UNARY_FN_GRAD("Elu");
POPART_UNARY_FN_GRAD("Selu");
POPART_UNARY_FN_GRAD("Celu");
POPART_UNARY_FN_GRAD("HardSigmoid");
POPART_UNARY_FN_GRAD("HardSwish");
POPART_UNARY_FN_GRAD("Softsign");
POPART_UNARY_FN_GRAD("Softplus");
POPART_UNARY_FN_GRAD("ThresholdedRelu");
POPART_UNARY_FN_GRAD("Shrink");
POPART_UNARY_FN_GRAD("Gelu");
POPART_UNARY_FN_GRAD("GeluErf");
POPART_UNARY_FN_GRAD("Swish");
POPART_UNARY_FN_GRAD("Mish");
POPART_UNARY_FN_GRAD("Scale");
#undef POPART_UNARY_FN_GRAD
} // namespace popart
