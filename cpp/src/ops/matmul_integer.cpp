// MatMulInteger (ai.onnx 10): Y (INT32) = numpy matmul of (A - a_zero_point) and (B - b_zero_point),
// summed in 32 bits (wrapping on overflow). QLinearMatMul (10, 21): y = saturate(round_half_even(acc * m)
// + y_zero_point) with acc that integer product and m = a_scale * b_scale / y_scale, rounded to the scale
// type at each step (as the onnx reference); y has y_zero_point's type. Operands INT8/UINT8; a zero point
// has its operand's type. Parameters are one value (per tensor) or, 1-D, one per row of A ([M]) or per
// column of B ([N]); y_scale and y_zero_point are one value. No gradients.
#include "matmul_shape.hpp"
#include "ops/quantize.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class MatMulIntegerOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const bool qlinear = opid.type == "QLinearMatMul";
    const InIndex a = 0, b = qlinear ? 3 : 1;
    for (InIndex i : {a, b})
      if (!isInt8Type(inInfo(i).dataType()))
        throw error("input {} must be INT8 or UINT8, got {}", i, inInfo(i).data_type());
    const MatMulGeometry g = matmulGeometry(inShape(a), inShape(b));
    const int64_t rows = inRank(a) > 1 ? g.m : 1, cols = inRank(b) > 1 ? g.n : 1;
    if (!qlinear) {
      checkQuantParam(*this, 2, inInfo(a).dataType(), rows, "a_zero_point");
      checkQuantParam(*this, 3, inInfo(b).dataType(), cols, "b_zero_point");
      outInfo(0) = TensorInfo(DataType::INT32, g.out);
      return;
    }
    const DataType scale = inInfo(1).dataType();
    if (scale != DataType::FLOAT && scale != DataType::FLOAT16)
      throw error("input 1 (a_scale) must be FLOAT or FLOAT16, got {}", inInfo(1).data_type());
    checkQuantParam(*this, 1, scale, rows, "a_scale");
    checkQuantParam(*this, 2, inInfo(a).dataType(), rows, "a_zero_point");
    checkQuantParam(*this, 4, scale, cols, "b_scale");
    checkQuantParam(*this, 5, inInfo(b).dataType(), cols, "b_zero_point");
    checkQuantParam(*this, 6, scale, 1, "y_scale");
    if (!hasInput(7) || !isInt8Type(inInfo(7).dataType()))
      throw error("input 7 (y_zero_point) must be given, INT8 or UINT8");
    checkQuantParam(*this, 7, inInfo(7).dataType(), 1, "y_zero_point");
    outInfo(0) = TensorInfo(inInfo(7).dataType(), g.out);
  }
};

} // namespace
POPART_REGISTER_OP(MatMulIntegerOp, onnxOp("MatMulInteger", {10}), {DataType::INT8, DataType::UINT8});
POPART_REGISTER_OP(MatMulIntegerOp, onnxOp("QLinearMatMul", {10, 21}), {DataType::INT8, DataType::UINT8});
} // namespace popart
