// NonZero (ai.onnx 9, 13): y[:, j] = the index of the j-th non-zero element, INT64
// [rank, count]. The count depends on the values, and shapes are static here: the
// input must be a constant, and the op is then folded at import.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class NonZeroOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (!inIsConst(0))
      throw error("input 0 ('{}') must be a constant known at compile time: the output shape depends on the "
                  "input values, and shapes are static", inId(0));
    int64_t count = 0;
    for (double v : inConstFloats(0)) count += v != 0.0;
    outInfo(0) = TensorInfo(DataType::INT64, {inRank(0), count});
  }
};

} // namespace
POPART_REGISTER_OP(NonZeroOp, onnxOp("NonZero", {9, 13}), allTypes());
} // namespace popart
