// Expand (ai.onnx 8, 13): y = x broadcast (numpy, both ways) with the constant
// `shape` input. No gradient yet.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class ExpandOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1}; }
  void setup() override {
    if (inRank(1) != 1) throw error("shape must be 1-D, has shape {}", inShape(1));
    Shape shape = inConstInts(1);
    for (int64_t d : shape)
      if (d < 0) throw error("shape {} has a negative dimension", shape);
    outInfo(0) = TensorInfo(inInfo(0).dataType(), npOut(inShape(0), shape));
  }
};

} // namespace
POPART_REGISTER_OP(ExpandOp, onnxOp("Expand", {8, 13}), shapeutil::copyableTypes());
} // namespace popart
