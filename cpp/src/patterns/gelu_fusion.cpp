// GeluFusion (training graphs): the five ops of an erf GELU as exporters write it, e = Erf(x * (1/sqrt 2) or
// x / sqrt 2), p = e + 1, y = (x * 0.5) * p or (x * p) * 0.5, become one ai.graphcore GeluErf op. Autodiff
// then builds one GeluErfGrad (dx = dy (Phi(x) + x phi(x))) instead of the gradients of five ops and their
// sum: the GELU of a BERT FFN reads and writes [tokens, 3072] twice instead of ~12 times per step.
// Intermediates must have that one consumer and not be graph outputs or anchors. Inference graphs are left
// to GemmFusion, which folds the same chain into the product before it.
#include "fusion_util.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"

namespace popart {
namespace {

using fusion::constrained;
using fusion::erfGeluAround;

class GeluFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!fusion::isOnnx(op, "Erf") || !op->getIr().isTraining()) return false;
    auto [ops, x] = erfGeluAround(op);
    return !ops.empty() && !constrained(ops);
  }

  bool apply(Op *erf) const override {
    Graph &g = erf->getGraph();
    auto [ops, x] = erfGeluAround(erf);
    Op::Settings settings = ops.back()->settings;
    settings.name = "GeluErf_" + ops.back()->outId(0);
    fusion::replaceChain(g, ops, OpManager::createOp(graphcoreOp("GeluErf"), settings, {}), {{0, x->id}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(GeluFusion, "GeluFusion", false, PatternsLevel::Default);
} // namespace popart
