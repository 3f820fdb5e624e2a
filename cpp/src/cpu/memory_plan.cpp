// Activations get arena slots by liveness over the schedule: a greedy,
// size-descending first fit among tensors whose lifetimes overlap. Views and
// in-place outputs reuse their input's slot and extend its lifetime.
#include "memory_plan.hpp"
#include "popart/graph.hpp"
#include "popart/tensor.hpp"
#include <algorithm>

namespace popart::popx {

const Tensor *aliasParent(const Tensor *t) {
  Op *p = t->getProducerUnsafe();
  if (!p) return nullptr;
  for (const auto &[o, out] : p->output->tensorMap()) {
    if (out != t) continue;
    for (const auto &[i, in] : p->input->tensorMap())
      if (p->aliases(i, o) && in->info.nbytes() == t->info.nbytes()) return in;
  }
  return nullptr;
}

const Tensor *aliasRoot(const Tensor *t) {
  while (const Tensor *parent = aliasParent(t)) t = parent;
  return t;
}

namespace {

struct Interval {
  const Tensor *root;
  int64_t start, end, size;
};

// Iterative and memoised: every tensor is walked once, whatever the chain length.
const Tensor *findRoot(const Tensor *t, MemoryPlan &plan) {
  std::vector<const Tensor *> path;
  const Tensor *root = t;
  while (true) {
    auto known = plan.aliasRoot.find(root);
    if (known != plan.aliasRoot.end()) { root = known->second; break; }
    const Tensor *parent = aliasParent(root);
    if (!parent) break;
    path.push_back(root);
    root = parent;
  }
  for (const Tensor *x : path) plan.aliasRoot[x] = root;
  return root;
}

int64_t placeFirstFit(const Interval &x, const std::vector<std::pair<const Interval *, int64_t>> &placed) {
  std::vector<std::pair<int64_t, int64_t>> busy;
  for (const auto &[iv, off] : placed)
    if (iv->start <= x.end && x.start <= iv->end) busy.emplace_back(off, off + iv->size);
  std::sort(busy.begin(), busy.end());
  int64_t candidate = 0;
  for (const auto &[b, e] : busy) {
    if (candidate + x.size <= b) break;
    candidate = std::max(candidate, e);
  }
  return candidate;
}

} // namespace

MemoryPlan planMemory(const Graph &g, const std::vector<Op *> &schedule,
                      const std::unordered_set<const Tensor *> &keepAlive,
                      const std::unordered_set<const Tensor *> &external) {
  MemoryPlan plan;
  std::unordered_map<const Op *, int64_t> position;
  for (size_t i = 0; i < schedule.size(); ++i) position[schedule[i]] = static_cast<int64_t>(i);
  const int64_t last = static_cast<int64_t>(schedule.size());

  std::unordered_map<const Tensor *, Interval> live;
  for (Tensor *t : g.getTensors().getAll()) {
    if (t->tensorType() != TensorType::ActGrad) continue;
    const Tensor *root = findRoot(t, plan);
    Op *p = t->getProducerUnsafe();
    int64_t start = p && position.count(p) ? position[p] : -1;
    int64_t end = start;
    for (Op *c : t->consumers.getOps())
      if (position.count(c)) end = std::max(end, position[c]);
    if (keepAlive.count(t) || t->isGraphOutput()) end = last;
    if (root->tensorType() != TensorType::ActGrad || external.count(root)) continue;  // memory elsewhere
    auto it = live.find(root);
    if (it == live.end()) {
      live[root] = {root, start, end, alignUp(std::max<int64_t>(root->info.nbytes(), 1))};
    } else {
      it->second.start = std::min(it->second.start, start);
      it->second.end = std::max(it->second.end, end);
    }
  }

  std::vector<Interval> order;
  for (auto &kv : live) order.push_back(kv.second);
  std::sort(order.begin(), order.end(), [](const Interval &a, const Interval &b) {
    return a.size != b.size ? a.size > b.size : a.root->id < b.root->id;
  });
  std::vector<std::pair<const Interval *, int64_t>> placed;
  for (const auto &iv : order) {
    int64_t off = placeFirstFit(iv, placed);
    placed.emplace_back(&iv, off);
    plan.offset[iv.root] = off;
    plan.arenaBytes = std::max(plan.arenaBytes, off + iv.size);
  }
  return plan;
}

} // namespace popart::popx
