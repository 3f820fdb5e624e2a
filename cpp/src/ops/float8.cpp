// Float8 ops (ai.graphcore 1; FLOAT8_143 = E4M3 bias 8, FLOAT8_152 = E5M2 bias 16, both without inf or -0),
// each fused with a power-of-two scale read at run time from a scalar INT32 input `log2_scale` in [-32, 32):
//   Pow2ScaleThenCast        y = fp8(x * 2^s)              (to: FLOAT8_143/152; nan_on_overflow: NaN, else clip)
//   CastThenPow2Scale        y = float(x) * 2^s            (to: FLOAT16 or FLOAT)
//   MatMulPow2Scaled         y = (a @ b) * 2^s             (numpy matmul of float8 a, b; output_type FLOAT16/FLOAT)
//   ConvPow2Scaled           y = conv(x, w) * 2^s          (Conv's attributes, float8 x and w)
//   ConvTransposePow2Scaled  y = conv_transpose(x, w) * 2^s (ConvTranspose's attributes)
// Inference only: no gradients.
#include "conv_attributes.hpp"
#include "matmul_shape.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

bool isFloat8(DataType t) { return t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152; }

DataType typeAttr(const Op &op, const char *name, DataType dflt) {
  if (!op.attributes().hasAttribute(name)) return dflt;
  return static_cast<DataType>(op.attr<Attributes::Int>(name));
}

void checkFloat8(const Op &op, InIndex i, const char *what) {
  if (!isFloat8(op.inInfo(i).dataType()))
    throw error("input {} ({}, '{}') is {}, expected FLOAT8_143 or FLOAT8_152", i, what, op.inId(i),
                op.inInfo(i).data_type());
}

/// The log2_scale input: a scalar INT32 tensor (its value is checked when the op runs).
void checkLog2Scale(const Op &op, InIndex i) {
  if (!op.hasInput(i)) throw error("input {} (log2_scale) is missing", i);
  const auto &s = op.inInfo(i);
  if (s.dataType() != DataType::INT32 || s.nelms() != 1 || s.rank() != 0)
    throw error("log2_scale '{}' must be a scalar INT32 tensor, got {}", op.inId(i), s.toString());
}

DataType wideOutput(const Op &op, const char *attr) {
  DataType to = typeAttr(op, attr, DataType::FLOAT16);
  if (to != DataType::FLOAT16 && to != DataType::FLOAT)
    throw error("attribute '{}' is {}, expected FLOAT16 or FLOAT", attr, toString(to));
  return to;
}

class Pow2ScaleThenCastOp final : public Op {  // inputs: X (FLOAT16/FLOAT), log2_scale
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    DataType from = inInfo(0).dataType(), to = typeAttr(*this, "to", DataType::UNDEFINED);
    if (from != DataType::FLOAT16 && from != DataType::FLOAT)
      throw error("input '{}' is {}, expected FLOAT16 or FLOAT", inId(0), inInfo(0).data_type());
    if (!isFloat8(to)) throw error("attribute 'to' is {}, expected FLOAT8_143 or FLOAT8_152", toString(to));
    checkLog2Scale(*this, 1);
    outInfo(0) = TensorInfo(to, inShape(0));
  }
};

class CastThenPow2ScaleOp final : public Op {  // inputs: X (float8), log2_scale
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat8(*this, 0, "X");
    checkLog2Scale(*this, 1);
    outInfo(0) = TensorInfo(wideOutput(*this, "to"), inShape(0));
  }
};

class MatMulPow2ScaledOp final : public Op {  // inputs: A, B (float8), log2_scale
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat8(*this, 0, "A");
    checkFloat8(*this, 1, "B");
    checkLog2Scale(*this, 2);
    outInfo(0) = TensorInfo(wideOutput(*this, "output_type"), matmulGeometry(inShape(0), inShape(1)).out);
  }
};

class ConvPow2ScaledOp final : public Op {  // inputs: X, W (float8), log2_scale
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat8(*this, 0, "X");
    checkFloat8(*this, 1, "W");
    checkLog2Scale(*this, 2);
    outInfo(0) = TensorInfo(DataType::FLOAT16, convOutputShape(*this, 0, 1));
  }
};

class ConvTransposePow2ScaledOp final : public Op {  // inputs: X, W [C_in, C_out/group, k...] (float8), log2_scale
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat8(*this, 0, "X");
    checkFloat8(*this, 1, "W");
    checkLog2Scale(*this, 2);
    const auto &x = inShape(0), &w = inShape(1);
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size())
      throw error("X {} must be 3-D, 4-D or 5-D and W {} of the same rank", x, w);
    int64_t group = attr<Attributes::Int>("group", 1);
    if (group < 1 || x[1] % group != 0 || w[0] != x[1])
      throw error("group {} does not fit X channels {} and W {} (W[0] must be the channels of X, divisible by group)",
                  group, x[1], w);
    auto g = convTransposeGeometry(*this, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()));
    Shape out{x[0], w[1] * group};
    out.insert(out.end(), g.in.begin(), g.in.end());
    outInfo(0) = TensorInfo(DataType::FLOAT16, out);
  }
};

std::vector<DataType> castFromTypes() { return {DataType::FLOAT16, DataType::FLOAT}; }
std::vector<DataType> float8Types() { return {DataType::FLOAT8_143, DataType::FLOAT8_152}; }

} // namespace
POPART_REGISTER_OP(Pow2ScaleThenCastOp, graphcoreOp("Pow2ScaleThenCast"), castFromTypes());
POPART_REGISTER_OP(CastThenPow2ScaleOp, graphcoreOp("CastThenPow2Scale"), float8Types());
POPART_REGISTER_OP(MatMulPow2ScaledOp, graphcoreOp("MatMulPow2Scaled"), float8Types());
POPART_REGISTER_OP(ConvPow2ScaledOp, graphcoreOp("ConvPow2Scaled"), float8Types());
POPART_REGISTER_OP(ConvTransposePow2ScaledOp, graphcoreOp("ConvTransposePow2Scaled"), float8Types());
} // namespace popart
