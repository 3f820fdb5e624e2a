// Expand (ai.onnx 8, 13): y = x broadcast (numpy, both ways) with the constant
// `shape` input. Gradient (ExpandGrad): dx = dy summed over the broadcast dims.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

/// dx = dy summed over the dims Expand broadcast (input 0: dY; the shape gets no gradient).
class ExpandGradOp final : public ShapeGradOp {
public:
  explicit ExpandGradOp(const Op &fwd) : ShapeGradOp(internalOp("ExpandGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

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
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ExpandGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(ExpandOp, onnxOp("Expand", {8, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ExpandGradOp, internalOp("ExpandGrad"));
} // namespace popart
