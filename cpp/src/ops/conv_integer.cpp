// ConvInteger (ai.onnx 10): Y (INT32) = Conv of (x - x_zero_point) by (w - w_zero_point), summed in 32 bits.
// QLinearConv (10): y = saturate(round_half_even((acc + B) * m) + y_zero_point) with acc that integer
// convolution, B an optional INT32 bias [M] and m = x_scale * w_scale / y_scale in float (as the onnx
// reference); y has y_zero_point's type. x, w INT8/UINT8; a zero point has its operand's type. The w
// parameters are one value or one per output channel ([M]); the others one value. Conv's attributes
// and window rules (conv_attributes.hpp). No gradients.
#include "conv_attributes.hpp"
#include "ops/quantize.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class ConvIntegerOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const bool qlinear = opid.type == "QLinearConv";
    const InIndex x = 0, w = qlinear ? 3 : 1;
    for (InIndex i : {x, w})
      if (!isInt8Type(inInfo(i).dataType()))
        throw error("input {} must be INT8 or UINT8, got {}", i, inInfo(i).data_type());
    const Shape out = convOutputShape(*this, x, w);
    const int64_t m = out[1];
    if (!qlinear) {
      checkQuantParam(*this, 2, inInfo(x).dataType(), 1, "x_zero_point");
      checkQuantParam(*this, 3, inInfo(w).dataType(), m, "w_zero_point");
      outInfo(0) = TensorInfo(DataType::INT32, out);
      return;
    }
    checkQuantParam(*this, 1, DataType::FLOAT, 1, "x_scale");
    checkQuantParam(*this, 2, inInfo(x).dataType(), 1, "x_zero_point");
    checkQuantParam(*this, 4, DataType::FLOAT, m, "w_scale");
    checkQuantParam(*this, 5, inInfo(w).dataType(), m, "w_zero_point");
    checkQuantParam(*this, 6, DataType::FLOAT, 1, "y_scale");
    if (!hasInput(7) || !isInt8Type(inInfo(7).dataType()))
      throw error("input 7 (y_zero_point) must be given, INT8 or UINT8");
    checkQuantParam(*this, 7, inInfo(7).dataType(), 1, "y_zero_point");
    if (hasInput(8) && (inInfo(8).dataType() != DataType::INT32 || inShape(8) != Shape{m}))
      throw error("input 8 (B) must be INT32 [{}], got {} {}", m, inInfo(8).data_type(), inShape(8));
    outInfo(0) = TensorInfo(inInfo(7).dataType(), out);
  }
};

} // namespace
POPART_REGISTER_OP(ConvIntegerOp, onnxOp("ConvInteger", {10}), {DataType::INT8, DataType::UINT8});
POPART_REGISTER_OP(ConvIntegerOp, onnxOp("QLinearConv", {10}), {DataType::INT8, DataType::UINT8});
} // namespace popart
