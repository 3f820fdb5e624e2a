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
#include <vector>

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

// Writing to a tensor is safe when it, and every tensor it is a view of, is an
// activation read only by the next link of the chain (and finally by the op).
// Answers are memoised per tensor for one pass: ops are visited in schedule
// order and only ever turn their own (later) outputs into views, so a chain's
// answer never changes during the pass. This keeps long in-place chains linear.
class ModifySafety {
public:
  explicit ModifySafety(const Graph &g) : ir_(g.getIr()), main_(g.isMainGraph()) {}

  bool safe(const Tensor *start) {
    std::vector<const Tensor *> path;
    bool upstream = true;
    for (const Tensor *t = start; t; t = viewSource(t)) {
      auto known = memo_.find(t->id);
      if (known != memo_.end()) { upstream = known->second; break; }
      path.push_back(t);
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      upstream = upstream && localOk(*it);
      memo_[(*it)->id] = upstream;
    }
    return upstream;
  }

private:
  bool localOk(const Tensor *t) const {
    return t->tensorType() == TensorType::ActGrad && t->consumers.getTotal() == 1 && !t->isGraphOutput() &&
           !t->isGraphInput() && !(main_ && ir_.getDataFlow().isAnchored(t->id));
  }
  const Ir &ir_;
  bool main_;
  std::unordered_map<TensorId, bool> memo_;
};

bool tryInplace(Graph &g, Op *op, ModifySafety &safety) {
  for (const auto &[id, priority] : op->inplacePriorityDefault()) {
    if (priority <= 0) continue;
    std::unique_ptr<Op> candidate = op->getInplaceVariant(id);
    bool ok = true;
    for (const auto &[i, t] : op->input->tensorMap())
      if (candidate->modifies(i) || candidate->aliases(i, 0)) ok = ok && safety.safe(t);
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
  ModifySafety safety(g);
  for (Op *op : g.getOpSchedule()) {
    if (op->inplacePriorityDefault().empty() || op->settings.excludePatterns.size()) continue;
    count += tryInplace(g, op, safety);
  }
  if (count) logging::transform::debug("inplace: {} ops of graph '{}' now work in place", count, g.displayName());
  return count > 0;
}

} // namespace popart
