// Cast (ai.onnx 1, 6, 9, 13, 19, 21, 24): y = (to) x between FLOAT, FLOAT16,
// DOUBLE, BFLOAT16, INT8/16/32/64, UINT8/16/32/64, BOOL and the ONNX storage
// types (FLOAT8E4M3FN ... INT2, FLOAT8E8M0); `to` is a type name string at
// opset 1. `saturate` (opset 19) decides whether float8 targets clamp
// out-of-range values; `round_mode` (opset 24: up, down or nearest) how values
// round to FLOAT8E8M0's powers of two.
// CastLike (ai.onnx 15, 19, 21, 24): y = x cast to the type of input 1 (only
// its type is read), with the same attributes.
// BitCast (ai.onnx 26): y = the bytes of x read as type `to` (same bit width,
// same shape). No gradient (not a differentiable map).
// Casting to the input's own type aliases the input. Gradient (float to float):
// dx = (type of x) dy, by the Cast kernel; none for CastLike's target_type.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

bool castable(DataType t) {
  switch (t) {
  case DataType::FLOAT: case DataType::FLOAT16: case DataType::DOUBLE: case DataType::BOOL:
  case DataType::INT8: case DataType::INT16: case DataType::INT32: case DataType::INT64:
  case DataType::UINT8: case DataType::UINT16: case DataType::UINT32: case DataType::UINT64:
  case DataType::BFLOAT16: return true;
  default: return isStorageType(t);
  }
}

void checkRoundMode(const Op &op) {
  const std::string mode = op.attr<Attributes::String>("round_mode", "up");
  if (mode != "up" && mode != "down" && mode != "nearest")
    throw error("attribute 'round_mode' is '{}', expected 'up', 'down' or 'nearest'", mode);
}

class CastGradOp final : public ShapeGradOp {  // input: dY
public:
  explicit CastGradOp(const Op &fwd) : ShapeGradOp(internalOp("CastGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool aliases(InIndex in, OutIndex out) const override {
    return in == 0 && out == 0 && inInfo(0).dataType() == outInfo(0).dataType();
  }
};

class CastOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (!attributes().hasAttribute("to")) throw error("attribute 'to' is required");
    const auto &v = attributes().values().at("to");
    DataType to;
    if (const auto *s = std::get_if<Attributes::String>(&v)) to = dataTypeFromString(*s);
    else to = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("to")));
    if (!castable(to)) throw error("Cast to {} is not supported (attribute 'to' = {})", toString(to), toString(v));
    checkRoundMode(*this);
    outInfo(0) = TensorInfo(to, inShape(0));
  }
  bool aliases(InIndex in, OutIndex out) const override {
    return in == 0 && out == 0 && inInfo(0).dataType() == outInfo(0).dataType();
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<CastGradOp>(*this); }
};

class CastLikeOp final : public Op {  // inputs: input, target_type
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const DataType to = inInfo(1).dataType();
    if (!castable(to)) throw error("CastLike to {} (the type of input 1, target_type) is not supported", toString(to));
    checkRoundMode(*this);
    outInfo(0) = TensorInfo(to, inShape(0));
  }
  bool aliases(InIndex in, OutIndex out) const override {
    return in == 0 && out == 0 && inInfo(0).dataType() == outInfo(0).dataType();
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<CastGradOp>(*this); }
};

class BitCastOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const DataType from = inInfo(0).dataType();
    const DataType to = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("to")));
    if (!castable(to) || !castable(from) || dataTypeBits(to) != dataTypeBits(from))
      throw error("BitCast from {} to {} (attribute 'to'): the types must be numeric, BOOL or storage types of the same bit width",
                  toString(from), toString(to));
    outInfo(0) = TensorInfo(to, inShape(0));
  }
};

} // namespace
POPART_REGISTER_OP(BitCastOp, onnxOp("BitCast", {26}), shapeutil::copyableTypes());
POPART_REGISTER_OP(CastLikeOp, onnxOp("CastLike", {15, 19, 21, 24}), shapeutil::copyableTypes());
POPART_REGISTER_OP(CastOp, onnxOp("Cast", {1, 6, 9, 13, 19, 21, 24}), shapeutil::copyableTypes());
POPART_REGISTER_OP(CastGradOp, internalOp("CastGrad"));
} // namespace popart
