// An op becomes in-place when nothing else reads the memory it would write:
// see safeToModify.
#include "inplace.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include <unordered_map>

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

// Whether a write through `t` touches only memory no one else reads: `t` is
// an activation read once (not a graph input, output or anchor).
bool privateActivation(const Tensor *t, bool main, const Ir &ir) {
  return t->tensorType() == TensorType::ActGrad && t->consumers.getTotal() == 1 && !t->isGraphOutput() &&
         !t->isGraphInput() && !(main && ir.getDataFlow().isAnchored(t->id));
}

// Writing to `t` is safe when it, and every tensor it is a view of, is a
// private activation. `known` caches answers for one pass in schedule order
// (producers are visited first, so a cached answer is never stale): a chain
// of N in-place ops then costs O(N), not O(N^2).
bool safeToModify(const Op &op, InIndex i, std::unordered_map<TensorId, bool> &known) {
  const Ir &ir = op.getIr();
  bool main = op.getGraph().isMainGraph();
  std::vector<const Tensor *> chain;
  bool safe = true;
  for (const Tensor *t = op.inTensor(i); t; t = viewSource(t)) {
    auto it = known.find(t->id);
    if (it != known.end()) {
      safe = it->second;
      break;
    }
    chain.push_back(t);
    if (!privateActivation(t, main, ir)) {
      safe = false;
      break;
    }
  }
  // Every link up to the first unsafe one shares that answer; links below an
  // unsafe tensor are unsafe too.
  for (const Tensor *t : chain) known[t->id] = safe;
  return safe;
}

bool tryInplace(Graph &g, Op *op, std::unordered_map<TensorId, bool> &known) {
  for (const auto &[id, priority] : op->inplacePriorityDefault()) {
    if (priority <= 0) continue;
    std::unique_ptr<Op> candidate = op->getInplaceVariant(id);
    bool ok = true;
    for (const auto &[i, t] : op->input->tensorMap())
      if (candidate->modifies(i) || candidate->aliases(i, 0)) ok = ok && safeToModify(*op, i, known);
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
  std::unordered_map<TensorId, bool> known;
  for (Op *op : g.getOpSchedule()) {
    if (op->inplacePriorityDefault().empty() || op->settings.excludePatterns.size()) continue;
    count += tryInplace(g, op, known);
  }
  if (count) logging::transform::debug("inplace: {} ops of graph '{}' now work in place", count, g.displayName());
  return count > 0;
}

} // namespace popart
