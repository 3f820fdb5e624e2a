#include "prune.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/tensor.hpp"
#include <set>

namespace popart {

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
  while (!work.empty()) {
    Op *op = work.back();
    work.pop_back();
    if (!keep.insert(op).second) continue;
    for (const auto &[i, t] : op->input->tensorMap()) need(t);
    for (const auto &[i, t] : op->output->tensorMap()) needed.insert(t);
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
