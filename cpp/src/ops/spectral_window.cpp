// Signal windows (ai.onnx 17) of length N = size (input 0, a compile-time int
// scalar), with n = 0..N-1 and M = N if periodic (default 1) else N - 1:
//   HannWindow:     y[n] = 0.5 - 0.5 cos(2 pi n / M)
//   HammingWindow:  y[n] = 25/46 - 21/46 cos(2 pi n / M)
//   BlackmanWindow: y[n] = 0.42 - 0.5 cos(2 pi n / M) + 0.08 cos(4 pi n / M)
// Output type from output_datatype (default FLOAT). No gradient (no float input).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class SpectralWindowOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {0}; }
  void setup() override {
    if (inInfo(0).nelms() != 1) throw error("input 0 (size) must be a scalar, got shape {}", inInfo(0).shapeString());
    const int64_t size = inConstInts(0).at(0);
    if (size < 0) throw error("input 0 (size) must not be negative, got {}", size);
    const int64_t periodic = attr<Attributes::Int>("periodic", 1);
    if (periodic != 0 && periodic != 1) throw error("attribute periodic must be 0 or 1, got {}", periodic);
    const DataType t = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("output_datatype", 1)));
    if (t == DataType::BOOL || t == DataType::STRING || t == DataType::BFLOAT16 || t == DataType::UNDEFINED)
      throw error("attribute output_datatype = {} is not supported (expected a numeric type)", toString(t));
    outInfo(0) = TensorInfo(t, Shape{size});
  }
};

} // namespace
POPART_REGISTER_OP(SpectralWindowOp, onnxOp("HannWindow", {17}), {DataType::INT32, DataType::INT64});
POPART_REGISTER_OP(SpectralWindowOp, onnxOp("HammingWindow", {17}), {DataType::INT32, DataType::INT64});
POPART_REGISTER_OP(SpectralWindowOp, onnxOp("BlackmanWindow", {17}), {DataType::INT32, DataType::INT64});
} // namespace popart
