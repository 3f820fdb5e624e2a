// RandomNormal / RandomUniform (ai.onnx 1): y ~ N(mean, scale^2) or U[low, high), of the
// `shape` attribute; the *Like variants (1) take the shape (and default dtype) of input 0.
#include "ops/random.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

double RandomOp::param0() const {
  return isNormal() ? attr<Attributes::Float>("mean", 0.0f) : attr<Attributes::Float>("low", 0.0f);
}

double RandomOp::param1() const {
  return isNormal() ? attr<Attributes::Float>("scale", 1.0f) : attr<Attributes::Float>("high", 1.0f);
}

void RandomOp::setup() {
  const bool like = opid.type.size() > 4 && opid.type.compare(opid.type.size() - 4, 4, "Like") == 0;
  DataType t = like ? inInfo(0).dataType() : DataType::FLOAT;
  if (attributes().hasAttribute("dtype")) t = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("dtype")));
  if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE)
    throw error("output type {} is not supported (expected FLOAT, FLOAT16 or DOUBLE; set attribute dtype)",
                toString(t));
  Shape shape = like ? inShape(0) : attr<Attributes::Ints>("shape");
  for (int64_t d : shape)
    if (d < 0) throw error("attribute shape {} has a negative dimension", shape);
  if (!isNormal() && !(param0() <= param1())) throw error("low {} must not exceed high {}", param0(), param1());
  outInfo(0) = TensorInfo(t, shape);
}

POPART_REGISTER_OP(RandomOp, onnxOp("RandomNormal", {1}));
POPART_REGISTER_OP(RandomOp, onnxOp("RandomUniform", {1}));
POPART_REGISTER_OP(RandomOp, onnxOp("RandomNormalLike", {1}), allTypes());
POPART_REGISTER_OP(RandomOp, onnxOp("RandomUniformLike", {1}), allTypes());
} // namespace popart
