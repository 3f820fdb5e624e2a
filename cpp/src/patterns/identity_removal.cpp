// IdentityRemoval: an Identity (or inference Dropout without its mask) whose
// output is not a graph output or anchor is removed; consumers read its input.
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/patterns.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

class IdentityRemoval final : public Pattern {
public:
  bool matches(Op *op) const override {
    bool identityLike = op->opid.type == "Identity" ||
                        (op->opid.type == "Dropout" && !op->getIr().isTraining() && !op->hasOutput(1));
    if (op->opid.domain != Domain::ai_onnx || !identityLike || !op->hasInput(0) || !op->hasOutput(0)) return false;
    const Tensor *out = op->outTensor(0);
    return !out->isGraphOutput() && !op->getIr().getDataFlow().isAnchored(out->id) && op->input->n() == 1;
  }

  bool apply(Op *op) const override {
    Graph &g = op->getGraph();
    TensorId in = op->inId(0), out = op->outId(0);
    std::vector<std::pair<Op *, std::vector<int>>> uses;
    Tensor *t = g.getTensor(out);
    for (Op *c : t->consumers.getOps()) uses.emplace_back(c, c->input->indices(t));
    g.eraseOp(op->id);
    for (auto &[c, idx] : uses)
      for (int i : idx) {
        c->disconnectInTensor(i);
        c->connectInTensor(i, in);
      }
    g.getTensors().remove(out);
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(IdentityRemoval, "IdentityRemoval", false, PatternsLevel::Minimal, PatternsLevel::Default);
} // namespace popart
