// Gradient helper: sums a tensor of the forward output's shape over the dims a
// broadcast input was expanded along (the adjoint of numpy broadcasting).
#pragma once
#include "broadcast.hpp"
#include "dispatch.hpp"
#include <algorithm>

namespace popart::cpu {

/// Plan for summing a tensor of shape `out` into `target` (target's shape
/// right-aligned against out, as numpy broadcasting reads it).
inline BroadcastPlan makeSumPlan(const Shape &target, const Shape &out) { return makeBroadcastPlan(target, out, out); }

/// target = sum of `full` over the broadcast dims of plan `p` (made by makeSumPlan).
/// Accumulates in the compute type; rows of one target element are visited in sequence.
template <class T> void sumToShape(const BroadcastPlan &p, const T *full, T *target, int64_t targetN) {
  using C = compute_t<T>;
  std::fill(target, target + targetN, T(0.0f));
  auto row = [](const T *tg, const T *f, T *, int64_t n, RowMode m) {
    T *t = const_cast<T *>(tg);
    if (m == RowMode::VV) {  // t (the target) and f (the full tensor) never overlap
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) t[i] = T(C(t[i]) + C(f[i]));
      return;
    }
    C s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += C(f[i]);
    t[0] = T(C(t[0]) + s);
  };
  runBroadcastRows(p, static_cast<const T *>(target), full, const_cast<T *>(full), row, false);
}

} // namespace popart::cpu
