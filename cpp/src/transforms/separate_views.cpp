#include "separate_views.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include <set>
#include <utility>
#include <vector>

namespace popart {
namespace {

bool modifiesAny(const Op &op) {
  for (const auto &[i, t] : op.input->tensorMap())
    if (op.modifies(i)) return true;
  return false;
}

/// An op whose aliasing is an optimisation, not part of its meaning.
bool separable(const Op &op) {
  return !modifiesAny(op) && !(op.attributes().hasAttribute("view") && op.attr<Attributes::Int>("view", 0) != 0);
}

/// The (op, output) pairs to separate in the alias group of `t`: walks through ops that alias on purpose
/// and stops at the separable ones.
void collect(Tensor *t, std::set<std::pair<Op *, OutIndex>> &cut) {
  std::set<Tensor *> seen{t};
  std::vector<Tensor *> todo{t};
  auto visit = [&](Tensor *x) {
    if (seen.insert(x).second) todo.push_back(x);
  };
  while (!todo.empty()) {
    Tensor *cur = todo.back();
    todo.pop_back();
    if (Op *p = cur->getProducerUnsafe())
      for (const auto &[o, out] : p->output->tensorMap())
        if (out == cur)
          for (const auto &[i, in] : p->input->tensorMap())
            if (p->aliases(i, o)) {
              if (separable(*p)) cut.insert({p, o});
              else visit(in);
            }
    for (Op *c : cur->consumers.getOps())
      for (int i : c->input->indices(cur))
        for (const auto &[o, out] : c->output->tensorMap())
          if (c->aliases(i, o)) {
            if (separable(*c)) cut.insert({c, o});
            else visit(out);
          }
  }
}

void separate(Graph &g, Op *op, OutIndex o) {
  static const OperatorIdentifier nop{"ai.graphcore", "Nop", 1};
  Tensor *out = op->outTensor(o);
  const TensorId id = out->id;
  const TensorInfo info = out->info;
  const TensorId fresh = g.getIr().createIntermediateTensorId(id);
  op->disconnectOutTensor(o);
  op->createAndConnectOutTensor(o, fresh);
  op->outTensor(o)->info = info;
  Op *copy = g.createConnectedOp(nop, {{0, fresh}}, {{0, id}}, Attributes(), id + "_own_copy");
  copy->setVirtualGraphId(op->getOptionalVGraphId());
  std::vector<OpId> after;
  for (const auto &[b, a] : g.getTopoCons())
    if (b == op->id) after.push_back(a);
  for (OpId a : after) g.addTopoCon(copy, g.getOp(a));  // the copy is taken when the op's read was
}

} // namespace

void separateViews(Graph &g) {
  std::set<std::pair<Op *, OutIndex>> cut;
  for (const auto &[id, op] : g.getOps())
    for (const auto &[i, t] : op->input->tensorMap())
      if (op->modifies(i)) collect(t, cut);
  for (const auto &[op, o] : cut) separate(g, op, o);
  if (!cut.empty())
    logging::transform::debug("separateViews: {} outputs of graph '{}' get their own memory", cut.size(),
                              g.displayName());
}

} // namespace popart
