// Session::checkInplacingAmbiguity: an op that modifies a tensor in place must
// be ordered (by data or topological constraints) against every other op that
// reads or writes the same memory, i.e. the tensor or any alias of it;
// otherwise the result would depend on the schedule.
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/session.hpp"
#include "popart/tensor.hpp"
#include <map>
#include <set>

namespace popart {
namespace {

// Ops reachable from `from` along data edges and topological constraints.
std::set<const Op *> reachable(const Op *from, const std::map<const Op *, std::vector<const Op *>> &next) {
  std::set<const Op *> seen;
  std::vector<const Op *> todo{from};
  while (!todo.empty()) {
    const Op *op = todo.back();
    todo.pop_back();
    auto it = next.find(op);
    if (it == next.end()) continue;
    for (const Op *s : it->second)
      if (seen.insert(s).second) todo.push_back(s);
  }
  return seen;
}

// Tensors that share memory with t through alias edges (views, in-place outputs).
std::set<const Tensor *> aliasGroup(const Tensor *t) {
  std::set<const Tensor *> group{t};
  std::vector<const Tensor *> todo{t};
  while (!todo.empty()) {
    const Tensor *x = todo.back();
    todo.pop_back();
    auto visit = [&](const Tensor *y) {
      if (group.insert(y).second) todo.push_back(y);
    };
    for (Op *c : x->consumers.getOps())
      for (const auto &[i, in] : c->input->tensorMap())
        if (in == x)
          for (const auto &[o, out] : c->output->tensorMap())
            if (c->aliases(i, o)) visit(out);
    if (Op *p = x->getProducerUnsafe())
      for (const auto &[i, in] : p->input->tensorMap())
        if (p->output->tensorMap().size() && p->aliases(i, 0) && p->outTensor(0) == x) visit(in);
  }
  return group;
}

void checkGraph(const Graph &g) {
  std::map<const Op *, std::vector<const Op *>> next;
  std::map<const Op *, std::set<const Op *>> after;  // reachable sets, computed once per op
  auto later = [&](const Op *op) -> const std::set<const Op *> & {
    auto it = after.find(op);
    return it != after.end() ? it->second : after.emplace(op, reachable(op, next)).first->second;
  };
  for (const auto &[id, op] : g.getOps())
    for (const auto &[i, t] : op->output->tensorMap())
      for (Op *c : t->consumers.getOps()) next[op.get()].push_back(c);
  for (const auto &[before, after] : g.getTopoCons()) next[g.getOps().at(before).get()].push_back(g.getOps().at(after).get());
  for (const auto &[id, op] : g.getOps()) {
    for (const auto &[i, t] : op->input->tensorMap()) {
      if (!op->modifies(i)) continue;
      for (const Tensor *a : aliasGroup(t))
        for (Op *other : a->consumers.getOps()) {
          if (other == op.get() || later(op.get()).count(other) || later(other).count(op.get())) continue;
          throw error("in-placing is ambiguous: {} modifies '{}' but {} reads '{}' with no order between them",
                      op->debugName(), t->id, other->debugName(), a->id);
        }
    }
  }
}

} // namespace

void Session::checkInplacingAmbiguity() const {
  for (Graph *g : ir_->getAllGraphs()) checkGraph(*g);
}

} // namespace popart
