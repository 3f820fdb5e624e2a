// Gradient helper: sums a tensor of the forward output's shape over the dims a
// broadcast input was expanded along (the adjoint of numpy broadcasting).
#pragma once
#include "broadcast.hpp"
#include "dispatch.hpp"
#include <algorithm>
#include <type_traits>

namespace popart::cpu {

/// Plan for summing a tensor of shape `out` into `target` (target's shape
/// right-aligned against out, as numpy broadcasting reads it).
inline BroadcastPlan makeSumPlan(const Shape &target, const Shape &out) { return makeBroadcastPlan(target, out, out); }

/// target[j] += full[r * n + j] for the columns j in [c0, c1), rows r in order (compiled per vector unit).
template <class T>
POPART_SIMD_CLONES void sumRowsInto(const T *full, T *target, int64_t rows, int64_t n, int64_t c0, int64_t c1) {
  for (int64_t r = 0; r < rows; ++r) {
    const T *f = full + r * n;
#pragma omp simd
    for (int64_t j = c0; j < c1; ++j) target[j] += f[j];
  }
}

/// Whether plan `p` sums whole rows of its `inner` contiguous elements into one such row (a bias gradient).
inline bool sumsRowsIntoOne(const BroadcastPlan &p, int64_t targetN) {
  return p.dims.size() == 1 && p.strideA[0] == 0 && p.innerA && p.innerB && p.strideB[0] == p.inner &&
         targetN == p.inner;
}

/// target = sum of `full` over the broadcast dims of plan `p` (made by makeSumPlan).
/// Accumulates in the compute type; rows of one target element are visited in sequence. A float sum of
/// rows into one row (a bias gradient) splits the columns between threads (the same order per element).
template <class T> void sumToShape(const BroadcastPlan &p, const T *full, T *target, int64_t targetN) {
  using C = compute_t<T>;
  std::fill(target, target + targetN, T(0.0f));
  if constexpr (std::is_same_v<T, float>) {
    if (sumsRowsIntoOne(p, targetN)) {
      const int64_t rows = p.rows, n = p.inner;
      popx::Opx::parallelFor(n, [&](int64_t c0, int64_t c1) { sumRowsInto(full, target, rows, n, c0, c1); },
                             std::max<int64_t>(64, kMemoryBoundGrain / std::max<int64_t>(rows, 1)));
      return;
    }
  }
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
