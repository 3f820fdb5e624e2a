// Add, Sub, Mul, Div (ai.onnx 1, 6, 7, 13, 14) and Pow (1, 7, 12, 13, 15):
// y = a (op) b with numpy broadcasting (opset >= 7) or legacy `broadcast`/`axis`
// (opset < 7). Pow >= 12 lets the exponent type differ from the base type.
// Gradients: da = reduce(dy * dy/da) over a's broadcast dims; Pow: da = dy b a^(b-1),
// db = dy y log(a) (db only when the exponent has the base's type).
#include "binary_arith.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Legacy (opset < 7) broadcasting: B's dims line up with A's from `axis`.
Shape legacyShapeB(const Shape &a, const Shape &b, int64_t axis) {
  const auto ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  if (rb > ra) throw error("legacy broadcast (opset < 7): input B of rank {} exceeds rank {} of A", rb, ra);
  if (axis < 0) axis = ra - rb;
  if (axis > ra - rb)
    throw error("legacy broadcast (opset < 7): axis {} out of range for ranks {} and {}", axis, ra, rb);
  Shape eff(static_cast<size_t>(ra), 1);
  for (int64_t d = 0; d < rb; ++d) {
    if (b[d] != 1 && b[d] != a[axis + d])
      throw error("legacy broadcast (opset < 7): B {} does not match A {} at axis {}", b, a, axis);
    eff[axis + d] = b[d];
  }
  return eff;
}

} // namespace

BinaryArithOp::BinaryArithOp(const OperatorIdentifier &id, const Settings &settings)
    : ElementWiseBinaryOp(id, settings), arithType_(id.type),
      legacy_(id.domain == Domain::ai_onnx && id.version < 7) {
  for (const auto &[tail, in] : {std::pair<std::string, InIndex>{"LhsInplace", 0}, {"RhsInplace", 1}})
    if (endsWith(id.type, tail)) {
      arithType_ = id.type.substr(0, id.type.size() - tail.size());
      inplaceIn_ = in;
    }
}

void BinaryArithOp::setupTypes() {
  DataType ta = inInfo(0).dataType(), tb = inInfo(1).dataType();
  if (arithType_ == "Pow" && (opid.version >= 12 || inplaceIn_ >= 0)) {
    if (tb == DataType::BOOL || tb == DataType::STRING || tb == DataType::UNDEFINED)
      throw error("Pow exponent type {} is not supported (expected a numeric type)", toString(tb));
  } else if (ta != tb) {
    throw error("inputs have different types: {} and {}", toString(ta), toString(tb));
  }
}

void BinaryArithOp::setup() {
  setupTypes();
  shapeA_ = inShape(0);
  shapeB_ = inShape(1);
  if (legacy_ && attr<Attributes::Int>("broadcast", 0) != 0) {
    shapeB_ = legacyShapeB(shapeA_, shapeB_, attr<Attributes::Int>("axis", -1));
  } else if (legacy_ && shapeA_ != shapeB_) {
    throw error("input shapes {} and {} differ and broadcast=0 (legacy broadcasting, opset < 7)",
                shapeA_, shapeB_);
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), npOut(shapeA_, shapeB_));
  if (inplaceIn_ >= 0 && outShape(0) != inShape(inplaceIn_))
    throw error("{} writes its result into input {} of shape {}, but the broadcast result has shape {}", opid.type,
                inplaceIn_, inShape(inplaceIn_), outShape(0));
}

std::vector<std::tuple<OperatorIdentifier, float>> BinaryArithOp::inplacePriorityDefault() const {
  if (inplaceIn_ >= 0) return {};
  std::vector<std::tuple<OperatorIdentifier, float>> v;
  if (inShape(0) == outShape(0)) v.emplace_back(internalOp(arithType_ + "LhsInplace"), 10.0f);
  if (arithType_ != "Pow" && inShape(1) == outShape(0)) v.emplace_back(internalOp(arithType_ + "RhsInplace"), 10.0f);
  return v;
}

std::unique_ptr<Op> BinaryArithOp::getInplaceVariant(const OperatorIdentifier &id) const {
  auto op = std::make_unique<BinaryArithOp>(id, settings);
  op->attributes() = attributes();
  op->legacy_ = legacy_;
  return op;
}

std::vector<std::unique_ptr<Op>> BinaryArithOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> ops;
  for (InIndex arg : {0, 1}) {
    // Pow's exponent may have another type (opset >= 12): it gets a gradient only when it matches the base's
    if (arithType_ == "Pow" && arg == 1 && inInfo(1).dataType() != inInfo(0).dataType()) continue;
    ops.push_back(std::make_unique<BinaryArithGradOp>(*this, arg));
  }
  return ops;
}

BinaryArithGradOp::BinaryArithGradOp(const BinaryArithOp &fwd, InIndex arg)
    : Op(internalOp(fwd.arithType() + "Arg" + std::to_string(arg) + "Grad"), fwd.settings),
      arithType_(fwd.arithType()), arg_(arg), shapeA_(fwd.broadcastShape(0)), shapeB_(fwd.broadcastShape(1)),
      outShape_(fwd.outShape(0)), argInfo_(fwd.inInfo(arg)) {}

const std::vector<GradInOutMapper> &BinaryArithGradOp::gradInputInfo() const {
  using G = GradOpInType;
  static const std::vector<GradInOutMapper> dyOnly{{0, 0, G::GradOut}};
  static const std::vector<GradInOutMapper> withA{{0, 0, G::GradOut}, {1, 0, G::In}};
  static const std::vector<GradInOutMapper> withB{{0, 0, G::GradOut}, {1, 1, G::In}};
  static const std::vector<GradInOutMapper> withAB{{0, 0, G::GradOut}, {1, 0, G::In}, {2, 1, G::In}};
  if (arithType_ == "Mul") return arg_ == 0 ? withB : withA;
  if (arithType_ == "Div") return arg_ == 0 ? withB : withAB;
  if (arithType_ == "Pow") return withAB;
  return dyOnly;
}

const std::map<int, int> &BinaryArithGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> toA{{0, 0}}, toB{{0, 1}};
  return arg_ == 0 ? toA : toB;
}

POPART_REGISTER_OP(BinaryArithOp, onnxOp("Add", {1, 6, 7, 13, 14}), numericTypes());
POPART_REGISTER_OP(BinaryArithOp, onnxOp("Sub", {1, 6, 7, 13, 14}), numericTypes());
POPART_REGISTER_OP(BinaryArithOp, onnxOp("Mul", {1, 6, 7, 13, 14}), numericTypes());
POPART_REGISTER_OP(BinaryArithOp, onnxOp("Div", {1, 6, 7, 13, 14}), numericTypes());
POPART_REGISTER_OP(BinaryArithOp, onnxOp("Pow", {1, 7, 12, 13, 15}),
                   {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE, DataType::INT32, DataType::INT64});
// Public in PopART (ai.graphcore AddLhsInplace-1): a model may contain it.
POPART_REGISTER_OP(BinaryArithOp, graphcoreOp("AddLhsInplace"), numericTypes());
POPART_REGISTER_OP(BinaryArithOp, internalOp("AddRhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("SubLhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("SubRhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("MulLhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("MulRhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("DivLhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("DivRhsInplace"));
POPART_REGISTER_OP(BinaryArithOp, internalOp("PowLhsInplace"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("AddArg0Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("AddArg1Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("SubArg0Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("SubArg1Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("MulArg0Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("MulArg1Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("DivArg0Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("DivArg1Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("PowArg0Grad"));
POPART_REGISTER_OP(BinaryArithGradOp, internalOp("PowArg1Grad"));

} // namespace popart
