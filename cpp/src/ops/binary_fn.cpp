// Binary element-wise ops z = f(a, b), numpy broadcasting: Equal/Greater/Less(OrEqual)
// and And/Or/Xor give BOOL; bitwise ops, BitShift, Mod (fmod), PRelu (slope broadcast
// to X), ai.graphcore Atan2/Fmod/Remainder/ScaledAdd keep the input type.
// Gradients (floating types), summed over each input's broadcast dims: Atan2(a, b)
// da = b/(a^2+b^2), db = -a/(a^2+b^2); Fmod and Mod fmod=1 da = 1, db = -trunc(a/b);
// Remainder da = 1, db = -floor(a/b); PRelu dx = x < 0 ? slope : 1, dslope = x < 0 ? x : 0;
// ScaledAdd da = s0, db = s1, ds0 = sum(dy a), ds1 = sum(dy b). The rest have none.
#include "binary_fn.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <set>

namespace popart {
namespace {

bool isComparison(const std::string &t) {
  static const std::set<std::string> ops{"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  return ops.count(t) != 0;
}
bool isLogical(const std::string &t) { return t == "And" || t == "Or" || t == "Xor"; }

// Opset-1 broadcasting: with broadcast=1, B's dims align with A's from `axis`
// (default: trailing); with broadcast=0 the shapes must match.
Shape legacyBroadcastB(const Shape &a, const Shape &b, int64_t broadcast, int64_t axis) {
  if (!broadcast) {
    if (a != b) throw error("input shapes {} and {} differ and broadcast=0 (opset 1 broadcasting)", a, b);
    return b;
  }
  const auto ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  if (rb > ra) throw error("opset 1 broadcast: B of rank {} exceeds rank {} of A", rb, ra);
  if (axis < 0) axis = ra - rb;
  if (axis > ra - rb) throw error("opset 1 broadcast: axis {} out of range for ranks {} and {}", axis, ra, rb);
  Shape eff(static_cast<size_t>(ra), 1);
  for (int64_t d = 0; d < rb; ++d) {
    if (b[d] != 1 && b[d] != a[axis + d])
      throw error("opset 1 broadcast: B {} does not match A {} at axis {}", b, a, axis);
    eff[axis + d] = b[d];
  }
  return eff;
}

} // namespace

void BinaryFnOp::checkTypes() const {
  const std::string &t = opid.type;
  const DataType ta = inInfo(0).dataType(), tb = inInfo(1).dataType();
  if (ta != tb) throw error("inputs have different types: {} and {}", inInfo(0).data_type(), inInfo(1).data_type());
  for (InIndex i : {2, 3})
    if (hasInput(i) && inInfo(i).nelms() != 1)
      throw error("scale input {} must have one element, has shape {}", i, inShape(i));
  if (t == "BitShift") {
    auto dir = attr<Attributes::String>("direction", "");
    if (dir != "LEFT" && dir != "RIGHT")
      throw error("attribute direction='{}' is not supported (expected LEFT or RIGHT)", dir);
  }
  if (t == "Mod") {
    auto fmod = attr<Attributes::Int>("fmod", 0);
    if (fmod != 0 && fmod != 1) throw error("attribute fmod={} is not supported (expected 0 or 1)", fmod);
    bool floating = ta == DataType::FLOAT || ta == DataType::FLOAT16 || ta == DataType::DOUBLE;
    if (fmod == 0 && floating)
      throw error("fmod=0 is not defined for floating type {} (set fmod=1)", inInfo(0).data_type());
  }
}

void BinaryFnOp::setup() {
  checkTypes();
  const std::string &t = opid.type;
  shapeA_ = inShape(0);
  shapeB_ = inShape(1);
  bool legacy = opid.domain == Domain::ai_onnx && opid.version < 7 && (isComparison(t) || isLogical(t));
  if (legacy)
    shapeB_ = legacyBroadcastB(shapeA_, shapeB_, attr<Attributes::Int>("broadcast", 0),
                               attr<Attributes::Int>("axis", -1));
  Shape out = npOut(shapeA_, shapeB_);
  if (t == "PRelu" && out != shapeA_)
    throw error("slope of shape {} does not broadcast to X of shape {} (PRelu broadcasts one way)", shapeB_, shapeA_);
  DataType type = isComparison(t) || isLogical(t) ? DataType::BOOL : inInfo(0).dataType();
  outInfo(0) = TensorInfo(type, out);
}

namespace {
std::string binaryFnGradType(const BinaryFnOp &op) {
  const std::string &t = op.opid.type;
  const DataType d = op.inInfo(0).dataType();
  if (d != DataType::FLOAT && d != DataType::FLOAT16 && d != DataType::DOUBLE) return "";
  if (t == "Mod") return op.attr<Attributes::Int>("fmod", 0) != 0 ? "Fmod" : "";
  if (t == "Atan2" || t == "Fmod" || t == "Remainder" || t == "PRelu" || t == "ScaledAdd") return t;
  return "";
}
} // namespace

std::vector<std::unique_ptr<Op>> BinaryFnOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> v;
  if (binaryFnGradType(*this).empty()) return v;
  for (InIndex arg : {0, 1, 2, 3})  // ScaledAdd scales (2, 3) of the operands' type
    if (arg < 2 || (hasInput(arg) && inInfo(arg).dataType() == inInfo(0).dataType()))
      v.push_back(std::make_unique<BinaryFnGradOp>(*this, arg));
  return v;
}

BinaryFnGradOp::BinaryFnGradOp(const BinaryFnOp &fwd, InIndex arg)
    : Op(internalOp(binaryFnGradType(fwd) + "Arg" + std::to_string(arg) + "Grad"), fwd.settings), fnType_(binaryFnGradType(fwd)),
      arg_(arg), shapeA_(fwd.broadcastShape(0)), shapeB_(fwd.broadcastShape(1)), outShape_(fwd.outShape(0)),
      argInfo_(fwd.inInfo(arg)), toArg_{{0, arg}} {
  using G = GradOpInType;
  attributes() = fwd.attributes();  // ScaledAdd's scale0/scale1
  gradIn_ = {{0, 0, G::GradOut}};
  if (fnType_ != "ScaledAdd") gradIn_.insert(gradIn_.end(), {{1, 0, G::In}, {2, 1, G::In}});
  else if (arg >= 2) gradIn_.push_back({1, arg - 2, G::In});  // the scaled operand
  else if (fwd.hasInput(arg + 2)) gradIn_.push_back({arg + 3, arg + 2, G::In});  // the scale
}

POPART_REGISTER_OP(BinaryFnOp, onnxOp("Equal", {1, 7, 11, 13, 19}), allTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("Greater", {1, 7, 9, 13}), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("Less", {1, 7, 9, 13}), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("GreaterOrEqual", {12, 16}), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("LessOrEqual", {12, 16}), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("And", {1, 7}), {DataType::BOOL});
POPART_REGISTER_OP(BinaryFnOp, onnxOp("Or", {1, 7}), {DataType::BOOL});
POPART_REGISTER_OP(BinaryFnOp, onnxOp("Xor", {1, 7}), {DataType::BOOL});
POPART_REGISTER_OP(BinaryFnOp, onnxOp("BitShift", {11}),
                   {DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::UINT64});
POPART_REGISTER_OP(BinaryFnOp, onnxOp("BitwiseAnd", {18}), intTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("BitwiseOr", {18}), intTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("BitwiseXor", {18}), intTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("BitwiseAnd"), intTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("BitwiseOr"), intTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("BitwiseXor"), intTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("BitwiseXnor"), intTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("Mod", {10, 13}), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, onnxOp("PRelu", {1, 6, 7, 9, 16}),
                   {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE, DataType::INT32, DataType::INT64,
                    DataType::UINT32, DataType::UINT64});
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("Atan2"), floatTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("Fmod"), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("Remainder"), numericTypes());
POPART_REGISTER_OP(BinaryFnOp, graphcoreOp("ScaledAdd"), numericTypes());
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("Atan2Arg0Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("Atan2Arg1Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("FmodArg0Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("FmodArg1Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("RemainderArg0Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("RemainderArg1Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("PReluArg0Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("PReluArg1Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("ScaledAddArg0Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("ScaledAddArg1Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("ScaledAddArg2Grad"));
POPART_REGISTER_OP(BinaryFnGradOp, internalOp("ScaledAddArg3Grad"));

} // namespace popart
