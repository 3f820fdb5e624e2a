// MaxPoolReluFusion (inference only): a Relu whose result feeds only a MaxPool (one output, no indices) is
// applied after the pooling by the MaxPool itself (internal attribute __relu), which computes
// relu(max over the window of x) = max over the window of relu(x): Relu is monotonic, and both keep NaN as
// numpy does. The Relu then runs on the pooled tensor only (a quarter of the elements for 2x2 windows),
// inside the pool's own pass, instead of as a post-op of the convolution before it. Runs before ConvFusion,
// which would otherwise fuse the Relu into that convolution.
#include "fusion_util.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/patterns.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

using fusion::constrained;
using fusion::fusibleRelu;

class MaxPoolReluFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    return fusibleRelu(op) && !constrained(op) && fusion::maxPoolTakingRelu(op);
  }

  bool apply(Op *relu) const override {
    Op *pool = fusion::maxPoolTakingRelu(relu);
    auto fused = pool->clone();
    fused->attributes().setAttribute("__relu", Attributes::Int(1));
    fusion::replaceChain(relu->getGraph(), {relu, pool}, std::move(fused), {{0, relu->inId(0)}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(MaxPoolReluFusion, "MaxPoolReluFusion", false, PatternsLevel::Default);
} // namespace popart
