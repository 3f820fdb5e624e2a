#include "prune.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/tensor.hpp"
#include <set>

namespace popart {
namespace {

/// True when `t` or a tensor sharing its memory (through ops whose output aliases an input, either way)
/// is in `needed`.
bool aliasNeeded(const Tensor *t, const std::set<const Tensor *> &needed) {
  std::set<const Tensor *> seen{t};
  std::vector<const Tensor *> todo{t};
  while (!todo.empty()) {
    const Tensor *cur = todo.back();
    todo.pop_back();
    if (needed.count(cur)) return true;
    auto visit = [&](const Tensor *x) {
      if (seen.insert(x).second) todo.push_back(x);
    };
    if (Op *p = cur->getProducerUnsafe())
      for (const auto &[o, out] : p->output->tensorMap())
        if (out == cur)
          for (const auto &[i, in] : p->input->tensorMap())
            if (p->aliases(i, o)) visit(in);
    for (Op *c : cur->consumers.getOps())
      for (int i : c->input->indices(const_cast<Tensor *>(cur)))
        for (const auto &[o, out] : c->output->tensorMap())
          if (c->aliases(i, o)) visit(out);
  }
  return false;
}

} // namespace

bool prune(Graph &g) {
  std::set<const Tensor *> needed;
  std::vector<Op *> work;
  auto need = [&](const Tensor *t) {
    if (!needed.insert(t).second) return;
    if (Op *p = t->getProducerUnsafe()) work.push_back(p);
  };
  for (const auto &id : g.getOutputIds()) need(g.getTensor(id));
  if (g.isMainGraph())
    for (const auto &id : g.getIr().getDataFlow().anchors())
      if (g.getTensors().contains(id)) need(g.getTensor(id));
  for (const auto &[id, op] : g.getOps()) {
    bool modifiesPersistent = false;
    for (const auto &[i, t] : op->input->tensorMap())
      modifiesPersistent |= op->modifies(i) && (t->tensorType() == TensorType::Variable || t->isGraphInput());
    if (op->hasSideEffect() || modifiesPersistent) work.push_back(op.get());
  }
  std::set<const Op *> keep;
  auto drain = [&] {
    while (!work.empty()) {
      Op *op = work.back();
      work.pop_back();
      if (!keep.insert(op).second) continue;
      for (const auto &[i, t] : op->input->tensorMap()) need(t);
      for (const auto &[i, t] : op->output->tensorMap()) needed.insert(t);
    }
  };
  drain();
  // An op changing a needed tensor in place (or a tensor sharing its memory) is needed too, even when
  // nothing reads its own output: later readers of the tensor see its change (IRs built op by op).
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &[id, op] : g.getOps()) {
      if (keep.count(op.get())) continue;
      for (const auto &[i, t] : op->input->tensorMap())
        if (op->modifies(i) && aliasNeeded(t, needed)) {
          work.push_back(op.get());
          grew = true;
          break;
        }
    }
    drain();
  }
  std::vector<OpId> drop;
  for (const auto &[id, op] : g.getOps())
    if (!keep.count(op.get())) drop.push_back(id);
  for (OpId id : drop) g.eraseOp(id);
  for (Tensor *t : g.getTensors().getAll())
    if (t->tensorType() == TensorType::ActGrad && !t->hasProducer() && t->consumers.getTotal() == 0 &&
        !t->isGraphInput() && !t->isGraphOutput())
      g.getTensors().remove(t->id);
  if (!drop.empty()) logging::transform::debug("prune removed {} ops from graph '{}'", drop.size(), g.displayName());
  return !drop.empty();
}

} // namespace popart
