// Scale layout of QuantizeLinear / DequantizeLinear, resolved by the op and read by the kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// x seen as [outer, dim, inner] around `axis`; the scale (and zero point) is
/// one value (perTensor), one per index along the axis, or one per block of
/// `block` indices: scale index = (o * ceil(dim / block) + a / block) * inner + i.
struct QuantLayout {
  bool perTensor = true, blocked = false;
  int64_t outer = 1, dim = 1, inner = 1, block = 1;
  int64_t scaleIndex(int64_t flat) const {
    if (perTensor) return 0;
    const int64_t i = flat % inner, a = flat / inner % dim;
    if (!blocked) return a;
    const int64_t o = flat / (inner * dim), blocks = (dim + block - 1) / block;
    return (o * blocks + a / block) * inner + i;
  }
};

/// INT8 or UINT8: the operand types of MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv.
bool isInt8Type(DataType t);

/// Checks optional input `i` of `op` (named `name` in errors): type `t` and one value, or a 1-D tensor of
/// `perAxis` values (a quantisation parameter per tensor, or per row / column / channel).
void checkQuantParam(const Op &op, InIndex i, DataType t, int64_t perAxis, const char *name);

/// QuantizeLinear / DequantizeLinear (ai.onnx 10 .. 25): see quantize.cpp.
class LinearQuantOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const QuantLayout &layout() const { return layout_; }  // valid after setup()

private:
  QuantLayout layout_;
};

} // namespace popart
