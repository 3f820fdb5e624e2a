// Linear quantisation (ai.onnx 10, 13, 19, 21, 23, 24, 25), with s = scale and
// z = zero point (input 2, default 0) taken per tensor, per index along `axis`
// (1-D scale) or per block of block_size indices along `axis`:
//   QuantizeLinear:   y = saturate(round_half_even(x / s) + z), y of z's type,
//                     else output_dtype, else UINT8 (INT8/UINT8/INT16/UINT16)
//   DequantizeLinear: y = (x - z) * s, y of s's type (INT8/UINT8/INT16/UINT16/INT32 x)
// DynamicQuantizeLinear (ai.onnx 11): s = (max(0, max x) - min(0, min x)) / 255,
//   z = saturate(round_half_even(-min(0, min x) / s)), y = QuantizeLinear(x, s, z)
//   as UINT8; outputs y, s, z. No gradients (not differentiable).
#include "ops/quantize.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

bool quantType(DataType t) {
  return t == DataType::INT8 || t == DataType::UINT8 || t == DataType::INT16 || t == DataType::UINT16;
}

QuantLayout quantLayout(const Op &op) {
  QuantLayout l;
  const Shape &x = op.inShape(0), &s = op.inShape(1);
  const int64_t r = static_cast<int64_t>(x.size());
  const int64_t block = op.attr<Attributes::Int>("block_size", 0);
  if (op.inInfo(1).nelms() == 1 && s.size() <= 1 && block == 0) return l;
  const int64_t a0 = op.attr<Attributes::Int>("axis", 1), a = a0 < 0 ? a0 + r : a0;
  if (a < 0 || a >= r) throw error("attribute axis {} is out of range for input 0 of rank {}", a0, r);
  l.perTensor = false;
  l.dim = x[a];
  for (int64_t d = 0; d < a; ++d) l.outer *= x[d];
  for (int64_t d = a + 1; d < r; ++d) l.inner *= x[d];
  Shape want{l.dim};
  if (block > 0) {
    l.blocked = true;
    l.block = block;
    want = x;
    want[a] = (l.dim + block - 1) / block;
  }
  if (s != want)
    throw error("input 1 (scale) must be a scalar, [{}] for per-axis or {} for block_size {}, got {}", l.dim,
                TensorInfo(DataType::FLOAT, want).shapeString(), block, op.inInfo(1).shapeString());
  if (op.hasInput(2) && op.inShape(2) != s)
    throw error("input 2 (zero point) must have the scale's shape {}, got {}", op.inInfo(1).shapeString(),
                op.inInfo(2).shapeString());
  return l;
}

} // namespace

bool isInt8Type(DataType t) { return t == DataType::INT8 || t == DataType::UINT8; }

void checkQuantParam(const Op &op, InIndex i, DataType t, int64_t perAxis, const char *name) {
  if (!op.hasInput(i)) return;
  const auto &p = op.inInfo(i);
  const bool single = p.nelms() == 1 && p.rank() <= 1, axis = p.rank() == 1 && p.nelms() == perAxis;
  if (p.dataType() != t || !(single || axis))
    throw error("input {} ({}) must be {} with one value or [{}], got {} {}", i, name, toString(t), perAxis,
                p.data_type(), p.shape());
}

void LinearQuantOp::setup() {
  layout_ = quantLayout(*this);
  const bool quantize = opid.type == "QuantizeLinear";
  const DataType s = inInfo(1).dataType();
  if (s != DataType::FLOAT && s != DataType::FLOAT16 && s != DataType::DOUBLE)
    throw error("input 1 (scale) must be FLOAT, FLOAT16 or DOUBLE, got {}", toString(s));
  if (!quantize) {
    const DataType x = inInfo(0).dataType();
    if (!quantType(x) && x != DataType::INT32)
      throw error("input 0 must be INT8, UINT8, INT16, UINT16 or INT32, got {}", toString(x));
    if (hasInput(2) && inInfo(2).dataType() != x) throw error("input 2 (zero point) must have input 0's type");
    outInfo(0) = TensorInfo(s, inShape(0));
    return;
  }
  DataType y = DataType::UINT8;
  if (hasInput(2)) y = inInfo(2).dataType();
  else if (attr<Attributes::Int>("output_dtype", 0) != 0)
    y = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("output_dtype")));
  if (!quantType(y)) throw error("the quantised type must be INT8, UINT8, INT16 or UINT16, got {}", toString(y));
  outInfo(0) = TensorInfo(y, inShape(0));
}

namespace {

class DynamicLinearQuantOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0).dataType() != DataType::FLOAT)
      throw error("input 0 must be FLOAT, got {}", toString(inInfo(0).dataType()));
    outInfo(0) = TensorInfo(DataType::UINT8, inShape(0));
    outInfo(1) = TensorInfo(DataType::FLOAT, Shape{});
    outInfo(2) = TensorInfo(DataType::UINT8, Shape{});
  }
};

} // namespace
POPART_REGISTER_OP(LinearQuantOp, onnxOp("QuantizeLinear", {10, 13, 19, 21, 23, 24, 25}), allTypes());
POPART_REGISTER_OP(LinearQuantOp, onnxOp("DequantizeLinear", {10, 13, 19, 21, 23, 24, 25}), allTypes());
POPART_REGISTER_OP(DynamicLinearQuantOp, onnxOp("DynamicQuantizeLinear", {11}), {DataType::FLOAT});
} // namespace popart
