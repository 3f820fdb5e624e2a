// CumSum: the axis is read at each run. Sums run in the compute type (float for
// float16). Along the last axis each lane is one contiguous sweep; otherwise each
// [n, inner] block is swept along n for strips of up to 256 contiguous columns.
// CumSumGrad runs the same kernel (its op carries the flipped `reverse`).
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "popart/error.hpp"
#include <algorithm>

namespace popart::cpu {
namespace {

constexpr int64_t kStrip = 256;

template <class T>
void cumsumStrip(const T *x, T *y, int64_t n, int64_t inner, int64_t width, bool exclusive, bool reverse) {
  using C = compute_t<T>;
  C acc[kStrip];
  std::fill(acc, acc + width, C(0));
  for (int64_t s = 0; s < n; ++s) {
    const int64_t off = (reverse ? n - 1 - s : s) * inner;
    const T *xr = x + off;
    T *yr = y + off;
    if (exclusive) {
      for (int64_t i = 0; i < width; ++i) {
        C v = C(xr[i]);
        yr[i] = T(static_cast<C>(acc[i]));
        acc[i] += v;
      }
    } else {
      for (int64_t i = 0; i < width; ++i) {
        acc[i] += C(xr[i]);
        yr[i] = T(static_cast<C>(acc[i]));
      }
    }
  }
}

// inner == 1: each lane is contiguous; one running sum per lane.
template <class T> void cumsumLanes(const T *x, T *y, const AxisLanes &l, bool exclusive, bool reverse) {
  using C = compute_t<T>;
  const int64_t n = l.n, step = reverse ? -1 : 1;
  popx::Opx::parallelFor(l.outer, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T *xr = x + o * n + (reverse ? n - 1 : 0);
      T *yr = y + o * n + (reverse ? n - 1 : 0);
      C acc = C(0);
      for (int64_t j = 0; j < n; ++j, xr += step, yr += step) {
        C v = C(*xr);
        if (!exclusive) acc += v;
        *yr = T(static_cast<C>(acc));
        if (exclusive) acc += v;
      }
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)));
}

template <class T> void runCumSum(const T *x, T *y, const AxisLanes &l, bool exclusive, bool reverse) {
  if (l.inner == 1) return cumsumLanes(x, y, l, exclusive, reverse);
  const int64_t strips = (l.inner + kStrip - 1) / kStrip;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(l.n * std::min(l.inner, kStrip), 1));
  popx::Opx::parallelFor(l.outer * strips, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / strips, i0 = (t % strips) * kStrip;
      const int64_t base = o * l.n * l.inner + i0;
      cumsumStrip(x + base, y + base, l.n, l.inner, std::min(kStrip, l.inner - i0), exclusive, reverse);
    }
  }, grain);
}

int64_t readAxis(const popx::TensorView &a, int64_t rank) {
  int64_t axis = a.dtype() == DataType::INT32 ? a.data<int32_t>()[0] : a.data<int64_t>()[0];
  if (axis < -rank || axis >= rank) throw error("axis {} out of range for rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

class CumSumOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), a = getInTensor(1), y = getOutTensor(0);
    const bool exclusive = op_p->attr<Attributes::Int>("exclusive", 0) != 0;
    const bool reverse = op_p->attr<Attributes::Int>("reverse", 0) != 0;
    const Shape shape = inShape(0);
    if (y.nelms() == 0) return;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      T *py = y.data<T>();
      prog.add([=] {
        const AxisLanes l = axisLanes(shape, readAxis(a, static_cast<int64_t>(shape.size())));
        runCumSum(px, py, l, exclusive, reverse);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<CumSumOpx> cumsumOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("CumSum"), internalOp("CumSumGrad")});
} // namespace popart::cpu
