// Liveness-based placement of a graph's activations in one arena.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace popart {
class Graph;
class Op;
class Tensor;
} // namespace popart

namespace popart::popx {

struct MemoryPlan {
  /// Tensors that share another tensor's buffer (views, in-place outputs) -> that tensor.
  std::unordered_map<const Tensor *, const Tensor *> aliasRoot;
  /// Arena offsets of the ActGrad tensors that own memory.
  std::unordered_map<const Tensor *, int64_t> offset;
  int64_t arenaBytes = 0;
};

/// Plans the ActGrad tensors of `g` run in `schedule`; `keepAlive` tensors
/// (graph outputs, anchors) live until the end. `external` tensors have memory
/// elsewhere (a caller's buffers): they and their views get no arena slot.
MemoryPlan planMemory(const Graph &g, const std::vector<Op *> &schedule,
                      const std::unordered_set<const Tensor *> &keepAlive,
                      const std::unordered_set<const Tensor *> &external = {});

/// The input of its producer that `t` aliases whole (a view or in-place output), or null.
const Tensor *aliasParent(const Tensor *t);

/// The tensor at the end of t's chain of whole aliases (t itself when it aliases nothing).
const Tensor *aliasRoot(const Tensor *t);

constexpr int64_t kAlignment = 64;
inline int64_t alignUp(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

} // namespace popart::popx
