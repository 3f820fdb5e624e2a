// ArgMax/ArgMin: one scan per lane along the axis (inner axis), or row-wise sweeps of
// strips of lanes (outer axes); strict comparison keeps the first extreme, non-strict
// (select_last_index) the last; NaN counts as the extreme (as numpy): the first NaN, or the last one
// with select_last_index.
// Hardmax: the same first-max scan per lane, then a one-hot row.
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include <algorithm>

namespace popart::cpu {
namespace {

/// Index (0..n-1) of the first/last max (or min) of x[0], x[s], ... x[(n-1)s].
template <class T> int64_t extremeIndex(const T *x, int64_t n, int64_t s, bool isMax, bool last) {
  using C = compute_t<T>;
  int64_t best = 0;
  C bv = C(x[0]);
  if (bv != bv && !last) return best;
  for (int64_t j = 1; j < n; ++j) {
    C v = C(x[j * s]);
    if (v != v) {  // NaN wins: the first one ends the scan, or the last one with select_last_index
      if (!last) return j;
      best = j, bv = v;
      continue;
    }
    if (bv != bv) continue;
    bool better = isMax ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
    if (better) best = j, bv = v;
  }
  return best;
}

constexpr int64_t kArgStrip = 256;

/// Whether v replaces the current extreme b (NaN wins; a NaN extreme stays, except to a later NaN with
/// select_last_index, as numpy's argmax of the reversed lane).
template <bool IsMax, bool Last, class C> inline bool replaces(C v, C b) {
  if (b != b) return Last && v != v;
  if (v != v) return true;
  if constexpr (IsMax) return Last ? v >= b : v > b;
  else return Last ? v <= b : v < b;
}

// inner > 1: sweep an [n, width] strip row by row, keeping the extremes of `width`
// lanes side by side (contiguous loads); indices go to y[0..width).
template <bool IsMax, bool Last, class T>
void argStrip(const T *x, int64_t n, int64_t inner, int64_t width, int64_t *y) {
  using C = compute_t<T>;
  C best[kArgStrip];
  for (int64_t i = 0; i < width; ++i) best[i] = C(x[i]), y[i] = 0;
  for (int64_t j = 1; j < n; ++j) {
    const T *row = x + j * inner;
    for (int64_t i = 0; i < width; ++i) {
      const C v = C(row[i]);
      const bool take = replaces<IsMax, Last>(v, best[i]);
      best[i] = take ? v : best[i];
      y[i] = take ? j : y[i];
    }
  }
}

template <bool IsMax, bool Last, class T> void runArgStrips(const T *x, int64_t *y, const AxisLanes &l) {
  const int64_t strips = (l.inner + kArgStrip - 1) / kArgStrip;
  popx::Opx::parallelFor(l.outer * strips, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / strips, i0 = (t % strips) * kArgStrip;
      argStrip<IsMax, Last>(x + o * l.n * l.inner + i0, l.n, l.inner, std::min(kArgStrip, l.inner - i0),
                            y + o * l.inner + i0);
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(l.n * std::min(l.inner, kArgStrip), 1)));
}

template <class T> void runArg(const T *x, int64_t *y, const AxisLanes &l, bool isMax, bool last) {
  if (l.inner == 1) {
    forEachLane(l, [&](int64_t lane, int64_t b) { y[lane] = extremeIndex(x + b, l.n, 1, isMax, last); });
  } else if (isMax) {
    last ? runArgStrips<true, true>(x, y, l) : runArgStrips<true, false>(x, y, l);
  } else {
    last ? runArgStrips<false, true>(x, y, l) : runArgStrips<false, false>(x, y, l);
  }
}

class ArgExtremumOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t axis = shapeutil::normaliseAxis(op_p->attr<Attributes::Int>("axis", 0), op_p->inRank(0));
    const AxisLanes l = axisLanes(inShape(0), axis);
    const bool isMax = op_p->opid.type == "ArgMax";
    const bool last = op_p->attr<Attributes::Int>("select_last_index", 0) != 0;
    auto x = getInTensor(0);
    int64_t *y = getOutTensor(0).data<int64_t>();
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      prog.add([=] { runArg(px, y, l, isMax, last); });
    });
  }
};

class HardmaxOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t rank = op_p->inRank(0);
    const bool coerce2d = op_p->opid.version < 13;
    int64_t axis = op_p->attr<Attributes::Int>("axis", coerce2d ? 1 : -1);
    if (axis < 0) axis += rank;
    const AxisLanes l = axisLanes(inShape(0), axis, coerce2d ? rank : axis + 1);
    auto x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      T *py = y.data<T>();
      prog.add([=] {
        forEachLane(l, [&](int64_t, int64_t b) {
          int64_t k = extremeIndex(px + b, l.n, l.inner, true, false);
          for (int64_t j = 0; j < l.n; ++j) py[b + j * l.inner] = T(j == k ? 1.0f : 0.0f);
        });
      });
    });
  }
};

} // namespace
static popx::OpxCreator<ArgExtremumOpx> argExtremumOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("ArgMax"), onnxOp("ArgMin")});
static popx::OpxCreator<HardmaxOpx> hardmaxOpxCreator(onnxOp("Hardmax"));
} // namespace popart::cpu
