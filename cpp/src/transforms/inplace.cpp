// An op becomes in-place when nothing else reads the memory it would write:
// see safeToModify.
#include "inplace.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

// The input this tensor is a view of (through an aliasing producer), or null.
const Tensor *viewSource(const Tensor *t) {
  Op *p = t->getProducerUnsafe();
  if (!p) return nullptr;
  for (const auto &[o, out] : p->output->tensorMap())
    for (const auto &[i, in] : p->input->tensorMap())
      if (out == t && p->aliases(i, o)) return in;
  return nullptr;
}

// Writing to `t` is safe when it, and every tensor it is a view of, is an
// activation read only by the next link of the chain (and finally by `op`).
bool safeToModify(const Op &op, InIndex i) {
  const Ir &ir = op.getIr();
  bool main = op.getGraph().isMainGraph();
  for (const Tensor *t = op.inTensor(i); t; t = viewSource(t)) {
    if (t->tensorType() != TensorType::ActGrad || t->consumers.getTotal() != 1 || t->isGraphOutput() ||
        t->isGraphInput() || (main && ir.getDataFlow().isAnchored(t->id)))
      return false;
  }
  return true;
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
