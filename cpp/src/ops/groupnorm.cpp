// GroupNormalization: X [N, C, D...] with the C channels split into G = num_groups groups of C / G adjacent
// channels; per (n, g), over its C / G * D values: Y = scale_c * (X - mean) * invstd + bias_c,
// invstd = 1 / sqrt(var + epsilon), var the population variance.
//   ai.graphcore 1: scale, bias [C]; outputs Y, mean [N * G], invstd [N * G] (the inverse standard deviation,
//   which the gradient needs, rather than the variance).
//   ai.onnx 18: scale, bias [G] (one per group); ai.onnx 21: [C]; output Y only.
// Gradient (GroupNormalizationGrad, shared with InstanceNormalization): xh = (X - mean) invstd, g = dY scale_c,
//   dX = invstd (g - mean(g) - xh mean(g xh)) per group; dscale_c = sum(dY xh), dbias_c = sum(dY) over n and D
//   (summed over the group's channels for the per-group form).
#include "ops/normalization.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class GroupNormOp final : public Op {  // inputs: X, scale, bias
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override { return normGradOps("GroupNormalizationGrad", *this); }
};

void GroupNormOp::setup() {
  const TensorInfo &x = inInfo(0);
  if (x.rank() < 2) throw error("input X must have rank >= 2 (N, C, ...), got rank {}", x.rank());
  const int64_t c = x.dim(1), groups = attr<Attributes::Int>("num_groups");
  if (groups <= 0 || c % groups != 0)
    throw error("attribute num_groups={} must be positive and divide the {} channels", groups, c);
  const bool onnx = opid.domain != "ai.graphcore";
  if (onnx && opid.version >= 21 && attr<Attributes::Int>("stash_type", 1) != 1)
    throw error("attribute stash_type={} is not supported (only 1, FLOAT)", attr<Attributes::Int>("stash_type", 1));
  const int64_t params = onnx && opid.version < 21 ? groups : c;
  for (InIndex i : {1, 2}) {
    if (!hasInput(i)) throw error("input {} ({}) is required", i, i == 1 ? "scale" : "bias");
    if (inInfo(i).shape() != Shape{params})
      throw error("input {} ({}) has shape {}, expected [{}]", i, i == 1 ? "scale" : "bias", inInfo(i).shapeString(),
                  params);
    if (inInfo(i).dataType() != x.dataType())
      throw error("input {} has type {}, X has type {}", i, inInfo(i).data_type(), x.data_type());
  }
  outInfo(0) = x;
  for (OutIndex o : {1, 2})
    if (hasOutput(o)) outInfo(o) = TensorInfo(x.dataType(), Shape{x.dim(0) * groups});
}

} // namespace
POPART_REGISTER_OP(GroupNormOp, graphcoreOp("GroupNormalization", {1}), floatTypes());
POPART_REGISTER_OP(GroupNormOp, onnxOp("GroupNormalization", {18, 21}), floatTypes());
POPART_REGISTER_OP(NormGradOp, internalOp("GroupNormalizationGrad"));
} // namespace popart
