// EyeLike (ai.onnx 9): a 2-D tensor of the input's shape with ones on diagonal k
// (y[i][i + k] = 1) and zeros elsewhere; type from attribute dtype, else the input's.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class EyeLikeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool readsOnlyInputInfo() const override { return true; }
  void setup() override {
    if (inRank(0) != 2) throw error("input must be 2-D, has shape {}", inShape(0));
    DataType t = inInfo(0).dataType();
    if (attributes().hasAttribute("dtype")) t = fromOnnxDataType(static_cast<int32_t>(attr<Attributes::Int>("dtype")));
    if (t == DataType::STRING || t == DataType::UNDEFINED || t == DataType::BFLOAT16)
      throw error("attribute dtype = {} is not supported", toString(t));
    outInfo(0) = TensorInfo(t, inShape(0));
  }
};

} // namespace
POPART_REGISTER_OP(EyeLikeOp, onnxOp("EyeLike", {9}), allTypes());
} // namespace popart
