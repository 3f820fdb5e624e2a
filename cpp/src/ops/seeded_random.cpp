// PopXL's seeded random ops (ai.graphcore 1). The seed is a tensor input: UINT32 [2] (the value
// popxl.create_seeds / split_random_seed give), and the draws are a pure function of its value, so the
// same seed gives the same numbers on every run and in every graph.
//   RandomNormalSeeded(seed; shape, dtype, mean, scale): y ~ N(mean, scale^2).
//   RandomUniformSeeded(seed; shape, dtype, low, high): y ~ U[low, high).
//     dtype: ONNX element type (FLOAT, FLOAT16 or DOUBLE; default FLOAT).
//   ModifyRandomSeed(seed; modifier): a new seed mixed from seed and `modifier` (split_random_seed).
// None has a gradient (the outputs do not depend on a float input).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

void checkSeed(const Op &op) {
  const TensorInfo &s = op.inInfo(0);
  if (s.dataType() != DataType::UINT32 || s.shape() != Shape{2})
    throw error("seed '{}' must be UINT32 [2], got {} {}", op.inId(0), toString(s.dataType()), s.shape());
}

class SeededRandomOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkSeed(*this);
    const DataType t = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("dtype", 1)));
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE)
      throw error("dtype {} is not supported (FLOAT, FLOAT16 or DOUBLE)", toString(t));
    const Shape shape = attr<Attributes::Ints>("shape");
    for (int64_t d : shape)
      if (d < 0) throw error("attribute shape {} has a negative dimension", shape);
    if (opid.type == "RandomUniformSeeded" &&
        !(attr<Attributes::Float>("low", 0.0f) <= attr<Attributes::Float>("high", 1.0f)))
      throw error("low {} must not exceed high {}", attr<Attributes::Float>("low", 0.0f),
                  attr<Attributes::Float>("high", 1.0f));
    if (opid.type == "RandomNormalSeeded" && !(attr<Attributes::Float>("scale", 1.0f) >= 0.0f))
      throw error("scale {} must not be negative", attr<Attributes::Float>("scale", 1.0f));
    outInfo(0) = TensorInfo(t, shape);
  }
};

class ModifyRandomSeedOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkSeed(*this);
    attr<Attributes::Int>("modifier");
    outInfo(0) = inInfo(0);
  }
};

} // namespace
POPART_REGISTER_OP(SeededRandomOp, graphcoreOp("RandomNormalSeeded"), {DataType::UINT32});
POPART_REGISTER_OP(SeededRandomOp, graphcoreOp("RandomUniformSeeded"), {DataType::UINT32});
POPART_REGISTER_OP(ModifyRandomSeedOp, graphcoreOp("ModifyRandomSeed"), {DataType::UINT32});
} // namespace popart
