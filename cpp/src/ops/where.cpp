// Where (ai.onnx 9, 16): out = condition ? X : Y, numpy broadcasting of all three
// inputs; the output has X's type. No gradient yet.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class WhereOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0).dataType() != DataType::BOOL)
      throw error("condition must be BOOL, not {}", inInfo(0).data_type());
    if (inInfo(1).dataType() != inInfo(2).dataType())
      throw error("X and Y have different types: {} and {}", inInfo(1).data_type(), inInfo(2).data_type());
    outInfo(0) = TensorInfo(inInfo(1).dataType(), npOut(npOut(inShape(0), inShape(1)), inShape(2)));
  }
};

} // namespace
POPART_REGISTER_OP(WhereOp, onnxOp("Where", {9, 16}), {DataType::BOOL});
} // namespace popart
