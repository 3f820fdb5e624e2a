// BinaryConstScalar (ai.graphcore 1): a binary op with one side a constant
// scalar `value`. `op` names it (Mul, Div, Add, Sub, Pow; the index 0-4 is
// accepted too); `scalar_in_index` (default 1) says whether the scalar is the
// right (1: y = x op v) or the left operand (0: y = v op x).
// Gradient dx = dy * dy/dx: Mul v; Div 1/v or -v/x^2; Add 1; Sub 1 or -1;
// Pow v x^(v-1) or ln(v) v^x.
#include "ops/binary_const_scalar.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

const char *const kNames[] = {"Mul", "Div", "Add", "Sub", "Pow"};

BinaryConstScalarKind kindOf(const Op &op) {
  const auto &attrs = op.attributes();
  if (attrs.hasAttribute("op") && std::holds_alternative<Attributes::String>(attrs.values().at("op"))) {
    const auto &name = op.attr<Attributes::String>("op");
    for (int k = 0; k < 5; ++k)
      if (name == kNames[k]) return static_cast<BinaryConstScalarKind>(k);
    throw error("attribute 'op' is '{}', expected Mul, Div, Add, Sub or Pow", name);
  }
  const int64_t k = op.attr<Attributes::Int>("op", 0);
  if (k < 0 || k > 4) throw error("attribute 'op' is {}, expected 0-4 (Mul, Div, Add, Sub, Pow)", k);
  return static_cast<BinaryConstScalarKind>(k);
}

} // namespace

void BinaryConstScalarOp::setup() {
  kind_ = kindOf(*this);
  value_ = attr<Attributes::Float>("value");
  const int64_t at = attr<Attributes::Int>("scalar_in_index", 1);
  if (at != 0 && at != 1) throw error("attribute 'scalar_in_index' is {}, expected 0 or 1", at);
  scalarLeft_ = at == 0;
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> BinaryConstScalarOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> ops;
  ops.push_back(std::make_unique<BinaryConstScalarGradOp>(*this));
  return ops;
}

BinaryConstScalarGradOp::BinaryConstScalarGradOp(const BinaryConstScalarOp &fwd)
    : ElementWiseNonLinearUnaryGradOp(internalOp("BinaryConstScalarGrad"), fwd), kind_(fwd.kind()),
      value_(fwd.value()), scalarLeft_(fwd.scalarLeft()) {}

POPART_REGISTER_OP(BinaryConstScalarOp, graphcoreOp("BinaryConstScalar", {1}), floatTypes());
POPART_REGISTER_OP(BinaryConstScalarGradOp, internalOp("BinaryConstScalarGrad"));
} // namespace popart
