// An op becomes in-place when its input is an activation that nothing else
// reads: a single consumer, not anchored, not a graph output, and not itself
// a view of other memory.
#include "inplace.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

bool isView(const Tensor *t) {
  Op *p = t->getProducerUnsafe();
  if (!p) return false;
  for (const auto &[o, out] : p->output->tensorMap())
    for (const auto &[i, in] : p->input->tensorMap())
      if (out == t && p->aliases(i, o)) return true;
  return false;
}

bool safeToModify(const Op &op, InIndex i) {
  const Tensor *t = op.inTensor(i);
  const Ir &ir = op.getIr();
  return t->tensorType() == TensorType::ActGrad && t->consumers.getTotal() == 1 &&
         !t->isGraphOutput() && !t->isGraphInput() && !isView(t) &&
         !(op.getGraph().isMainGraph() && ir.getDataFlow().isAnchored(t->id));
}

bool tryInplace(Graph &g, Op *op) {
  for (const auto &[id, priority] : op->inplacePriorityDefault()) {
    if (priority <= 0) continue;
    std::unique_ptr<Op> candidate = op->getInplaceVariant(id);
    bool ok = true;
    for (const auto &[i, t] : op->input->tensorMap())
      if (candidate->modifies(i) || candidate->aliases(i, 0)) ok = ok && safeToModify(*op, i);
    if (!ok) continue;
    auto ins = op->input->tensorIdMap();
    auto outs = op->output->tensorIdMap();
    for (const auto &[b, a] : g.getTopoCons())
      if (b == op->id || a == op->id) { ok = false; break; }
    if (!ok) continue;
    g.eraseOp(op->id);
    Op *newOp = g.moveIntoGraph(std::move(candidate));
    g.connectAndSetup(newOp, ins, outs);
    return true;
  }
  return false;
}

} // namespace

bool inplace(Graph &g) {
  int count = 0;
  for (Op *op : g.getOpSchedule()) {
    if (op->inplacePriorityDefault().empty() || op->settings.excludePatterns.size()) continue;
    count += tryInplace(g, op);
  }
  if (count) logging::transform::debug("inplace: {} ops of graph '{}' now work in place", count, g.displayName());
  return count > 0;
}

} // namespace popart
