// CumSum / CumProd: the axis is read at each run. Sums and products run in the compute
// type (float for float16; integers wrap). Along the last axis each lane is one contiguous
// sweep; otherwise each [n, inner] block is swept along n for strips of up to 256
// contiguous columns. CumSumGrad runs the same kernel (its op carries the flipped `reverse`).
// CumProdGrad (dY, X, axis), per lane in scan order with dy' = dy (shifted by one for
// exclusive): dx_i = L_i R_i, L_i = prod_{k<i} x_k, R_i = dy'_i + x_{i+1} R_{i+1}: no
// division, so zeros in x are exact. R is kept in dx between the two sweeps.
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <type_traits>

namespace popart::cpu {
namespace {

constexpr int64_t kStrip = 256;

/// The running sum (Prod = false) or product (Prod = true); integers wrap like numpy.
template <bool Prod> struct CumStep {
  template <class C> static C identity() { return Prod ? C(1) : C(0); }
  template <class C> static C apply(C a, C b) {
    if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(Prod ? static_cast<U>(static_cast<U>(a) * static_cast<U>(b))
                                 : static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return Prod ? a * b : a + b;
    }
  }
};

template <bool Prod, class T>
void cumsumStrip(const T *x, T *y, int64_t n, int64_t inner, int64_t width, bool exclusive, bool reverse) {
  using C = compute_t<T>;
  using Step = CumStep<Prod>;
  C acc[kStrip];
  std::fill(acc, acc + width, Step::template identity<C>());
  for (int64_t s = 0; s < n; ++s) {
    const int64_t off = (reverse ? n - 1 - s : s) * inner;
    const T *xr = x + off;
    T *yr = y + off;
    if (exclusive) {
      for (int64_t i = 0; i < width; ++i) {
        C v = C(xr[i]);
        yr[i] = T(static_cast<C>(acc[i]));
        acc[i] = Step::apply(acc[i], v);
      }
    } else {
      for (int64_t i = 0; i < width; ++i) {
        acc[i] = Step::apply(acc[i], C(xr[i]));
        yr[i] = T(static_cast<C>(acc[i]));
      }
    }
  }
}

// inner == 1: each lane is contiguous; one running sum per lane.
template <bool Prod, class T>
void cumsumLanes(const T *x, T *y, const AxisLanes &l, bool exclusive, bool reverse) {
  using C = compute_t<T>;
  using Step = CumStep<Prod>;
  const int64_t n = l.n, step = reverse ? -1 : 1;
  popx::Opx::parallelFor(l.outer, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T *xr = x + o * n + (reverse ? n - 1 : 0);
      T *yr = y + o * n + (reverse ? n - 1 : 0);
      C acc = Step::template identity<C>();
      for (int64_t j = 0; j < n; ++j, xr += step, yr += step) {
        C v = C(*xr);
        if (!exclusive) acc = Step::apply(acc, v);
        *yr = T(static_cast<C>(acc));
        if (exclusive) acc = Step::apply(acc, v);
      }
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)));
}

template <bool Prod, class T> void runCumSum(const T *x, T *y, const AxisLanes &l, bool exclusive, bool reverse) {
  if (l.inner == 1) return cumsumLanes<Prod>(x, y, l, exclusive, reverse);
  const int64_t strips = (l.inner + kStrip - 1) / kStrip;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(l.n * std::min(l.inner, kStrip), 1));
  popx::Opx::parallelFor(l.outer * strips, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / strips, i0 = (t % strips) * kStrip;
      const int64_t base = o * l.n * l.inner + i0;
      cumsumStrip<Prod>(x + base, y + base, l.n, l.inner, std::min(kStrip, l.inner - i0), exclusive, reverse);
    }
  }, grain);
}

int64_t readAxis(const popx::TensorView &a, int64_t rank) {
  int64_t axis = a.dtype() == DataType::INT32 ? a.data<int32_t>()[0] : a.data<int64_t>()[0];
  if (axis < -rank || axis >= rank) throw error("axis {} out of range for rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

/// dx of one lane whose element s (in scan order) is at offset s * step from x, dy, dx (see the top).
template <class T>
void cumprodGradLane(const T *x, const T *dy, T *dx, int64_t n, int64_t step, bool exclusive) {
  using C = compute_t<T>;
  C r = C(0);
  for (int64_t s = n - 1; s >= 0; --s) {
    const C g = exclusive ? (s + 1 < n ? C(dy[(s + 1) * step]) : C(0)) : C(dy[s * step]);
    r = s + 1 < n ? g + C(x[(s + 1) * step]) * r : g;
    dx[s * step] = T(r);
  }
  C prefix = C(1);
  for (int64_t s = 0; s < n; ++s) {
    dx[s * step] = T(prefix * C(dx[s * step]));
    prefix *= C(x[s * step]);
  }
}

template <class T>
void runCumProdGrad(const T *x, const T *dy, T *dx, const AxisLanes &l, bool exclusive, bool reverse) {
  forEachLane(l, [&](int64_t, int64_t base) {
    const int64_t first = base + (reverse ? (l.n - 1) * l.inner : 0), step = reverse ? -l.inner : l.inner;
    cumprodGradLane(x + first, dy + first, dx + first, l.n, step, exclusive);
  });
}

class CumSumOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), a = getInTensor(1), y = getOutTensor(0);
    const bool exclusive = op_p->attr<Attributes::Int>("exclusive", 0) != 0;
    const bool reverse = op_p->attr<Attributes::Int>("reverse", 0) != 0;
    const bool prod = op_p->opid.type == "CumProd";
    const Shape shape = inShape(0);
    if (y.nelms() == 0) return;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      T *py = y.data<T>();
      prog.add([=] {
        const AxisLanes l = axisLanes(shape, readAxis(a, static_cast<int64_t>(shape.size())));
        if (prod) runCumSum<true>(px, py, l, exclusive, reverse);
        else runCumSum<false>(px, py, l, exclusive, reverse);
      });
    });
  }
};

class CumProdGradOpx final : public popx::Opx {  // inputs dY, X, axis
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto dy = getInTensor(0), x = getInTensor(1), a = getInTensor(2), dx = getOutTensor(0);
    const bool exclusive = op_p->attr<Attributes::Int>("exclusive", 0) != 0;
    const bool reverse = op_p->attr<Attributes::Int>("reverse", 0) != 0;
    const Shape shape = inShape(1);
    if (dx.nelms() == 0) return;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>(), *pdy = dy.data<T>();
      T *pdx = dx.data<T>();
      prog.add([=] {
        const AxisLanes l = axisLanes(shape, readAxis(a, static_cast<int64_t>(shape.size())));
        runCumProdGrad(px, pdy, pdx, l, exclusive, reverse);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<CumSumOpx> cumsumOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("CumSum"), internalOp("CumSumGrad"), onnxOp("CumProd")});
static popx::OpxCreator<CumProdGradOpx> cumprodGradOpxCreator(internalOp("CumProdGrad"));
} // namespace popart::cpu
