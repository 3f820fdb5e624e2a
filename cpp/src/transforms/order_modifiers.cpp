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

// The modifier and every op consuming its results, transitively.
std::set<Op *> dependents(Op *modifier) {
  std::set<Op *> out{modifier};
  std::vector<Op *> todo{modifier};
  while (!todo.empty()) {
    Op *op = todo.back();
    todo.pop_back();
    for (const auto &[o, t] : op->output->tensorMap())
      for (Op *c : t->consumers.getOps())
        if (out.insert(c).second) todo.push_back(c);
  }
  return out;
}

} // namespace

void orderAfterReaders(Graph &g, Tensor *t, Op *modifier) {
  std::vector<Tensor *> todo{t};
  std::set<Op *> seen = dependents(modifier);
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
