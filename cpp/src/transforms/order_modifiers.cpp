#include "order_modifiers.hpp"
#include "ops/host_io.hpp"
#include "popart/graph.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include <map>
#include <set>
#include <vector>

namespace popart {
namespace {

// The modifier and every op after it: consuming its results or ordered after it by a topological
// constraint (a front end such as PopXL orders a reader created after the modifier that way, so
// the reader sees the modified value), transitively.
std::set<Op *> dependents(const Graph &g, Op *modifier) {
  std::multimap<OpId, OpId> after;
  for (const auto &[b, a] : g.getTopoCons()) after.emplace(b, a);
  std::set<Op *> out{modifier};
  std::vector<Op *> todo{modifier};
  auto visit = [&](Op *c) {
    if (out.insert(c).second) todo.push_back(c);
  };
  while (!todo.empty()) {
    Op *op = todo.back();
    todo.pop_back();
    for (const auto &[o, t] : op->output->tensorMap())
      for (Op *c : t->consumers.getOps()) visit(c);
    auto [b, e] = after.equal_range(op->id);
    for (auto it = b; it != e; ++it) visit(g.getOp(it->second));
  }
  return out;
}

} // namespace

void orderAfterReaders(Graph &g, Tensor *t, Op *modifier) {
  std::vector<Tensor *> todo{t};
  std::set<Op *> seen = dependents(g, modifier);
  while (!todo.empty()) {
    Tensor *cur = todo.back();
    todo.pop_back();
    for (Op *c : cur->consumers.getOps()) {
      if (!seen.insert(c).second) continue;
      g.addTopoCon(c, modifier);
      for (int i : c->input->indices(cur))
        for (const auto &[o, out] : c->output->tensorMap())
          if (c->aliases(i, o)) todo.push_back(out);
    }
  }
}

void orderModifiers(Graph &g) {
  std::vector<std::pair<Op *, Tensor *>> modified;
  std::map<int64_t, Op *> lastRemoteAccess;  // by buffer id; getOps() is in creation order
  for (const auto &[id, op] : g.getOps()) {
    for (const auto &[i, t] : op->input->tensorMap())
      if (op->modifies(i)) modified.emplace_back(op.get(), t);
    if (auto *remote = dynamic_cast<RemoteIoOp *>(op.get())) {
      Op *&last = lastRemoteAccess[remote->bufferId()];
      if (last) g.addTopoCon(last, remote);
      last = remote;
    }
  }
  for (const auto &[op, t] : modified) orderAfterReaders(g, t, op);
}

} // namespace popart
