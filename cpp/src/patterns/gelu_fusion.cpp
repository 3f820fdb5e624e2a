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
using fusion::scalarOperand;
using fusion::soleConsumer;

/// The GELU ops around `erf` in the order they run, the last one producing y, and x; empty if no match.
std::pair<std::vector<Op *>, const Tensor *> geluAround(Op *erf) {
  if (!fusion::isOnnx(erf, "Erf") || !erf->hasInput(0)) return {};
  Op *scale = erf->inTensor(0)->getProducerUnsafe();
  const Tensor *x = scale ? scalarOperand(scale, "Mul", 0.70710678118654752) : nullptr;
  if (!x && scale) x = scalarOperand(scale, "Div", 1.4142135623730951, false);
  Op *plusOne = soleConsumer(erf);
  if (!x || soleConsumer(scale) != erf || !plusOne || scalarOperand(plusOne, "Add", 1.0) != erf->outTensor(0)) return {};
  Op *product = soleConsumer(plusOne);
  if (!fusion::isOnnx(product, "Mul") || product->input->n() != 2 || product->outInfo(0) != x->info) return {};
  const Tensor *other = product->inTensor(product->inTensor(0) == plusOne->outTensor(0) ? 1 : 0);
  if (other == x) {  // (x * p) * 0.5
    Op *half = soleConsumer(product);
    if (half && scalarOperand(half, "Mul", 0.5) == product->outTensor(0)) return {{scale, erf, plusOne, product, half}, x};
    return {};
  }
  Op *half = other->getProducerUnsafe();  // (x * 0.5) * p
  if (half && scalarOperand(half, "Mul", 0.5) == x && soleConsumer(half) == product)
    return {{half, scale, erf, plusOne, product}, x};
  return {};
}

class GeluFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!fusion::isOnnx(op, "Erf") || !op->getIr().isTraining()) return false;
    auto [ops, x] = geluAround(op);
    return !ops.empty() && !constrained(ops);
  }

  bool apply(Op *erf) const override {
    Graph &g = erf->getGraph();
    auto [ops, x] = geluAround(erf);
    const TensorId in = x->id, out = ops.back()->outId(0);
    Op::Settings settings = ops.back()->settings;
    settings.name = "GeluErf_" + out;
    std::vector<TensorId> dropped;
    for (Op *op : ops)
      if (op->outId(0) != out) dropped.push_back(op->outId(0));
    for (Op *op : ops) g.eraseOp(op->id);
    for (const auto &id : dropped) g.getTensors().remove(id);
    g.connectAndSetup(g.moveIntoGraph(OpManager::createOp(graphcoreOp("GeluErf"), settings, {})), {{0, in}}, {{0, out}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(GeluFusion, "GeluFusion", false, PatternsLevel::Default);
} // namespace popart
