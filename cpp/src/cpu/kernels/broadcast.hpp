// Numpy-broadcasting loop for binary element-wise kernels. Shapes are padded to
// the output rank, size-1 output dims dropped and neighbouring dims with the same
// broadcast pattern merged, so the inner loop is contiguous (vector-vector,
// vector-scalar or scalar-vector) and outer rows advance by an odometer.
#pragma once
#include "popart/error.hpp"
#include "popart/popx/opx.hpp"
#include "vmath.hpp"
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

namespace popart::cpu {

struct BroadcastPlan {
  std::vector<int64_t> dims, strideA, strideB;  // outer (non-inner) merged dims
  int64_t rows = 1;                             // product of dims
  int64_t inner = 1;                            // innermost merged dim
  bool innerA = true, innerB = true;            // inner loop reads a / b contiguously
};

inline BroadcastPlan makeBroadcastPlan(const Shape &a, const Shape &b, const Shape &out) {
  const size_t rank = out.size();
  auto dimOf = [rank](const Shape &s, size_t d) {
    size_t pad = rank - s.size();
    return d < pad ? int64_t(1) : s[d - pad];
  };
  struct Dim { int64_t size; bool fa, fb; };
  std::vector<Dim> merged;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool fa = dimOf(a, d) != 1, fb = dimOf(b, d) != 1;
    if (!merged.empty() && merged.back().fa == fa && merged.back().fb == fb) merged.back().size *= out[d];
    else merged.push_back({out[d], fa, fb});
  }
  BroadcastPlan p;
  if (merged.empty()) return p;
  p.inner = merged.back().size;
  p.innerA = merged.back().fa;
  p.innerB = merged.back().fb;
  int64_t sa = p.innerA ? p.inner : 1, sb = p.innerB ? p.inner : 1;
  size_t outer = merged.size() - 1;
  p.dims.resize(outer);
  p.strideA.resize(outer);
  p.strideB.resize(outer);
  for (size_t k = outer; k-- > 0;) {
    p.dims[k] = merged[k].size;
    p.strideA[k] = merged[k].fa ? sa : 0;
    p.strideB[k] = merged[k].fb ? sb : 0;
    if (merged[k].fa) sa *= merged[k].size;
    if (merged[k].fb) sb *= merged[k].size;
    p.rows *= merged[k].size;
  }
  if (outer > 32) throw error("broadcasting over {} merged dims is not supported", outer);
  return p;
}

/// How one inner row reads its inputs: vector-vector, vector-scalar, scalar-vector, scalar-scalar.
enum class RowMode { VV, VS, SV, SS };

/// Calls row(a_row, b_row, o_row, n, mode) for every contiguous output row of the
/// plan, split between threads unless `parallel` is false.
template <class TA, class TB, class TO, class Row>
void runBroadcastRows(const BroadcastPlan &p, const TA *a, const TB *b, TO *o, Row row, bool parallel = true) {
  const int64_t most = std::numeric_limits<int64_t>::max();
  const RowMode mode = p.innerA ? (p.innerB ? RowMode::VV : RowMode::VS) : (p.innerB ? RowMode::SV : RowMode::SS);
  if (p.rows == 1) {  // one contiguous run: split it between threads
    popx::Opx::parallelFor(p.inner, [&](int64_t s, int64_t e) {
      row(a + (p.innerA ? s : 0), b + (p.innerB ? s : 0), o + s, e - s, mode);
    }, parallel ? kMemoryBoundGrain : most);
    return;
  }
  const int nd = static_cast<int>(p.dims.size());
  const int64_t grain = parallel ? std::max<int64_t>(1, kMemoryBoundGrain / std::max<int64_t>(p.inner, 1)) : most;
  popx::Opx::parallelFor(p.rows, [&](int64_t r0, int64_t r1) {
    std::array<int64_t, 32> idx{};
    int64_t offA = 0, offB = 0;
    int64_t q = r0;  // multi-index of row r0: one division per dim per chunk
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = q % p.dims[d];
      q /= p.dims[d];
    }
    for (int d = 0; d < nd; ++d) offA += idx[d] * p.strideA[d], offB += idx[d] * p.strideB[d];
    for (int64_t r = r0; r < r1; ++r) {
      row(a + offA, b + offB, o + r * p.inner, p.inner, mode);
      for (int d = nd - 1; d >= 0; --d) {
        offA += p.strideA[d];
        offB += p.strideB[d];
        if (++idx[d] < p.dims[d]) break;
        offA -= p.strideA[d] * p.dims[d];
        offB -= p.strideB[d] * p.dims[d];
        idx[d] = 0;
      }
    }
  }, grain);
}

/// for i in [0, n): body(i), declared free of loop-carried dependences when Simd
/// (floating point only: integer ops such as division must not be speculated).
template <bool Simd, class B> inline __attribute__((always_inline)) void forEachIndex(int64_t n, B body) {
  if constexpr (Simd) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) body(i);
  } else {
    for (int64_t i = 0; i < n; ++i) body(i);
  }
}

/// One row of z = f(x, y) in the given mode. Safe when z aliases a full-length input.
template <class TA, class TB, class TO, class F>
inline __attribute__((always_inline)) void broadcastRow(const TA *x, const TB *y, TO *z, int64_t n, RowMode mode,
                                                        F f) {
  constexpr bool simd = std::is_floating_point_v<TA> && std::is_floating_point_v<TB> && std::is_floating_point_v<TO>;
  switch (mode) {
  case RowMode::VV: forEachIndex<simd>(n, [&](int64_t i) { z[i] = f(x[i], y[i]); }); break;
  case RowMode::VS: {
    const TB y0 = y[0];
    forEachIndex<simd>(n, [&](int64_t i) { z[i] = f(x[i], y0); });
    break;
  }
  case RowMode::SV: {
    const TA x0 = x[0];
    forEachIndex<simd>(n, [&](int64_t i) { z[i] = f(x0, y[i]); });
    break;
  }
  case RowMode::SS: std::fill(z, z + n, f(x[0], y[0])); break;
  }
}

/// o[i] = f(a[ia], b[ib]) over the broadcast output; f maps (TA, TB) -> TO.
/// Safe when o aliases a or b, provided the aliased input has the output's shape.
template <class TA, class TB, class TO, class F>
void runBroadcast(const BroadcastPlan &p, const TA *a, const TB *b, TO *o, F f) {
  runBroadcastRows(p, a, b, o, [&](const TA *x, const TB *y, TO *z, int64_t n, RowMode m) {
    broadcastRow(x, y, z, n, m, f);
  });
}

} // namespace popart::cpu
