// SplineBasis / SplineWeighting (formulas in ops/graphcore_spline.cpp), parallel over
// edges. SplineWeighting accumulates y[e, :] += (basis * x[e, i]) * weight[k, i, :]
// row by row (contiguous in Cout); float16 computes in float.
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

template <class C> C splinePiece(int64_t degree, C v, int64_t k) {
  if (degree == 1) return k == 0 ? C(1) - v : v;
  if (degree == 2) return k == 0 ? C(0.5) * v * v - v + C(0.5) : k == 1 ? -v * v + v + C(0.5) : C(0.5) * v * v;
  switch (k) {
  case 0: return (C(1) - v) * (C(1) - v) * (C(1) - v) / C(6);
  case 1: return (C(3) * v * v * v - C(6) * v * v + C(4)) / C(6);
  case 2: return (C(-3) * v * v * v + C(3) * v * v + C(3) * v + C(1)) / C(6);
  default: return v * v * v / C(6);
  }
}

template <class I> int64_t splineIntAt(const popx::TensorView &t, int64_t i) {
  return static_cast<int64_t>(static_cast<const I *>(t.raw())[i]);
}

int64_t intAt(const popx::TensorView &t, int64_t i) {
  switch (t.dtype()) {
  case DataType::INT64: return splineIntAt<int64_t>(t, i);
  case DataType::INT32: return splineIntAt<int32_t>(t, i);
  default: return splineIntAt<uint8_t>(t, i);  // UINT8 / BOOL
  }
}

template <class T> void splineBasis(const popx::TensorView &pseudo, const popx::TensorView &ks,
                                    const popx::TensorView &open, T *basis, int32_t *wIndex, int64_t degree) {
  using C = compute_t<T>;
  const int64_t edges = pseudo.shape()[0], dims = pseudo.shape()[1];
  const int64_t m = degree + 1;
  int64_t count = 1;
  for (int64_t d = 0; d < dims; ++d) count *= m;
  for (int64_t d = 0; d < dims; ++d)
    if (intAt(ks, d) < 1) throw error("kernel_size[{}] = {} must be positive", d, intAt(ks, d));
  const T *p = pseudo.data<T>();
  popx::Opx::parallelFor(edges, [&](int64_t b, int64_t e) {
    for (int64_t edge = b; edge < e; ++edge)
      for (int64_t s = 0; s < count; ++s) {
        C value = 1;
        int64_t wi = 0, wiOffset = 1, rest = s;
        for (int64_t d = 0; d < dims; ++d) {
          const int64_t k = rest % m, size = intAt(ks, d);
          rest /= m;
          C v = C(p[edge * dims + d]) * C(size - degree * intAt(open, d));
          wi += ((static_cast<int64_t>(v) + k) % size) * wiOffset;
          wiOffset *= size;
          value *= splinePiece(degree, v - std::floor(v), k);
        }
        basis[edge * count + s] = static_cast<T>(value);
        wIndex[edge * count + s] = static_cast<int32_t>(wi);
      }
  }, std::max<int64_t>(1, 1024 / count));
}

class SplineBasisOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView pseudo = getInTensor(0), ks = getInTensor(1), open = getInTensor(2);
    popx::TensorView basis = getOutTensor(0), wIndex = getOutTensor(1);
    const int64_t degree = op_p->attr<Attributes::Int>("degree");
    dispatchFloat(pseudo.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] { splineBasis(pseudo, ks, open, basis.data<T>(), wIndex.data<int32_t>(), degree); });
    });
  }
};

template <class T> void splineWeighting(const popx::TensorView &x, const popx::TensorView &w,
                                        const popx::TensorView &basis, const popx::TensorView &wIndex, T *y) {
  using C = compute_t<T>;
  const int64_t edges = x.shape()[0], cin = x.shape()[1], kernels = w.shape()[0], cout = w.shape()[2];
  const int64_t splines = basis.shape()[1];
  const T *xs = x.data<T>(), *ws = w.data<T>(), *bs = basis.data<T>();
  for (int64_t i = 0; i < wIndex.nelms(); ++i)
    if (intAt(wIndex, i) < 0 || intAt(wIndex, i) >= kernels)
      throw error("weight_index {} (at flat position {}) out of range for {} kernel weights", intAt(wIndex, i), i,
                  kernels);
  popx::Opx::parallelFor(edges, [&](int64_t b, int64_t e) {
    for (int64_t edge = b; edge < e; ++edge) {
      T *yr = y + edge * cout;
      for (int64_t o = 0; o < cout; ++o) yr[o] = static_cast<T>(C(0));
      for (int64_t s = 0; s < splines; ++s) {
        const C bv = bs[edge * splines + s];
        const T *wk = ws + intAt(wIndex, edge * splines + s) * cin * cout;
        for (int64_t i = 0; i < cin; ++i) {
          const C f = bv * C(xs[edge * cin + i]);
          for (int64_t o = 0; o < cout; ++o) yr[o] = static_cast<T>(C(yr[o]) + f * C(wk[i * cout + o]));
        }
      }
    }
  }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, splines * cin * cout)));
}

class SplineWeightingOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), w = getInTensor(1), basis = getInTensor(2), wIndex = getInTensor(3);
    popx::TensorView y = getOutTensor(0);
    dispatchFloat(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] { splineWeighting(x, w, basis, wIndex, y.data<T>()); });
    });
  }
};

} // namespace
static popx::OpxCreator<SplineBasisOpx> POPART_UNIQUE_NAME(splineBasisOpxCreator_)(graphcoreOp("SplineBasis"));
static popx::OpxCreator<SplineWeightingOpx> POPART_UNIQUE_NAME(splineWeightingOpxCreator_)(
    graphcoreOp("SplineWeighting"));
} // namespace popart::cpu
