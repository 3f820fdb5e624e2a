// ReverseSequence (ai.onnx 10): for each batch b, y[b, t] = x[b, len_b - 1 - t] when
// t < len_b = sequence_lens[b], else x[b, t]; batch_axis/time_axis are 0 and 1.
// Gradient (ReverseSequenceGrad): the same reversal of dy (it is its own inverse).
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

/// dx = ReverseSequence(dy, sequence_lens) with the forward's attributes. Inputs: dY, sequence_lens.
class ReverseSequenceGradOp final : public ShapeGradOp {
public:
  explicit ReverseSequenceGradOp(const Op &fwd)
      : ShapeGradOp(internalOp("ReverseSequenceGrad"), fwd, 0,
                    {{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}}) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class ReverseSequenceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t b = attr<Attributes::Int>("batch_axis", 1), t = attr<Attributes::Int>("time_axis", 0);
    if (!((b == 0 && t == 1) || (b == 1 && t == 0)))
      throw error("attributes batch_axis={} and time_axis={} must be 0 and 1 in some order", b, t);
    if (inRank(0) < 2) throw error("input must have rank >= 2, got rank {}", inRank(0));
    if (inInfo(1).dataType() != DataType::INT64)
      throw error("sequence_lens has type {}, expected INT64", inInfo(1).data_type());
    if (inShape(1) != Shape{inShape(0)[b]})
      throw error("sequence_lens shape {} must be [{}] (the batch size)", inInfo(1).shapeString(), inShape(0)[b]);
    outInfo(0) = inInfo(0);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReverseSequenceGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(ReverseSequenceOp, onnxOp("ReverseSequence", {10}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ReverseSequenceGradOp, internalOp("ReverseSequenceGrad"));
} // namespace popart
