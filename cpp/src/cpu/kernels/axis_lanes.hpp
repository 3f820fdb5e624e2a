// A tensor seen as [outer, n, inner] around one axis: each of the outer * inner
// "lanes" is n elements `inner` apart. Shared by ArgMax/ArgMin, Hardmax, TopK, CumSum.
#pragma once
#include "popart/names.hpp"
#include "popart/popx/opx.hpp"
#include <cstdint>

namespace popart::cpu {

struct AxisLanes {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t lanes() const { return outer * inner; }
  /// Offset of element 0 of lane `lane` (lanes ordered outer-major).
  int64_t base(int64_t lane) const { return inner == 1 ? lane * n : (lane / inner) * n * inner + lane % inner; }
};

/// Lanes along dims [axis, axisEnd) of `shape` (axisEnd = axis + 1 for one dim).
inline AxisLanes axisLanes(const Shape &shape, int64_t axis, int64_t axisEnd = -1) {
  if (axisEnd < 0) axisEnd = axis + 1;
  AxisLanes l;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < axis ? l.outer : d < axisEnd ? l.n : l.inner) *= shape[d];
  return l;
}

/// f(lane, base) for every lane, split between threads (grain ~ 16k elements).
template <class F> void forEachLane(const AxisLanes &l, F f) {
  popx::Opx::parallelFor(l.lanes(), [&](int64_t b, int64_t e) {
    for (int64_t lane = b; lane < e; ++lane) f(lane, l.base(lane));
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(l.n, 1)));
}

} // namespace popart::cpu
