// Helpers shared by the element- and tuple-indexed gather/scatter kernels:
// index normalisation with range checks, the scatter reductions and the scatter
// gradients (serial over the updates, in scatter order, like the forward).
#pragma once
#include "ops/indexing.hpp"
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <memory>
#include <type_traits>

namespace popart::cpu {

/// indices[j] mapped to [0, dim) (negative counts from the end); throws when out of range.
template <class I> int64_t checkedIndex(I v, int64_t dim, int64_t j) {
  const int64_t i = static_cast<int64_t>(v);
  if (i < -dim || i >= dim)
    throw error("index {} (at flat position {}) out of range for an axis of size {}", i, j, dim);
  return i < 0 ? i + dim : i;
}

/// dst (op)= v for a scatter reduction; bool add/mul are or/and.
template <class T> void scatterCombine(ScatterReduction r, T &dst, T v) {
  using C = compute_t<T>;
  const C a = static_cast<C>(dst), b = static_cast<C>(v);
  switch (r) {
  case ScatterReduction::None: dst = v; return;
  case ScatterReduction::Add:
    if constexpr (std::is_same_v<T, bool>) dst = a || b;
    else dst = static_cast<T>(a + b);
    return;
  case ScatterReduction::Mul:
    if constexpr (std::is_same_v<T, bool>) dst = a && b;
    else dst = static_cast<T>(a * b);
    return;
  case ScatterReduction::Max: dst = static_cast<T>(std::max(a, b)); return;
  case ScatterReduction::Min: dst = static_cast<T>(std::min(a, b)); return;
  }
}

/// Calls f(I{}) with the C++ type of an INT32 or INT64 index tensor.
template <class F> void dispatchIndex(DataType t, F &&f) {
  if (t == DataType::INT32) f(int32_t{});
  else f(int64_t{});
}

/// Grows a gather (inputs data, indices; output y) run by plan->gather(indices, x, y),
/// typed by index type and element size: GatherElements and GatherND.
template <class Plan> void growPlannedGather(const popx::Opx &opx, popx::Sequence &prog, std::shared_ptr<const Plan> plan) {
  popx::TensorView x = opx.getInTensor(0), ind = opx.getInTensor(1), y = opx.getOutTensor(0);
  if (y.nelms() == 0) return;
  dispatchIndex(ind.dtype(), [&](auto itag) {
    using I = decltype(itag);
    dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
      using U = decltype(tag);
      prog.add([plan, x, ind, y] {
        plan->gather(ind.data<I>(), static_cast<const U *>(x.raw()), static_cast<U *>(y.raw()));
      });
    });
  });
}

/// Gradients of y = scatter(x, indices, updates) with reduction r, for x (dx, n elements)
/// and the updates (du). pairs(reverse, f) calls f(u, p) for every update element u and
/// the data position p it is combined into, in scatter order (backwards when reverse).
/// s0, s1: n scratch values each (mul, max, min only).
template <class T, class Pairs>
void scatterGrad(ScatterReduction r, const Pairs &pairs, int64_t n, const T *dy, const T *x, const T *upd, T *dx,
                 T *du, compute_t<T> *s0, compute_t<T> *s1) {
  using C = compute_t<T>;
  auto each = [n](auto f) {
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) f(i);
    }, 1 << 14);
  };
  switch (r) {
  case ScatterReduction::None:  // only the last write to a position reaches y
    each([&](int64_t i) { dx[i] = dy[i]; });
    pairs(true, [&](int64_t u, int64_t p) { du[u] = dx[p], dx[p] = T(0.0f); });
    return;
  case ScatterReduction::Add:
    each([&](int64_t i) { dx[i] = dy[i]; });
    pairs(false, [&](int64_t u, int64_t p) { du[u] = dy[p]; });
    return;
  case ScatterReduction::Max:
  case ScatterReduction::Min: {  // s0 = the result, s1 = how many values equal it
    const bool max = r == ScatterReduction::Max;
    each([&](int64_t i) { s0[i] = C(x[i]); });
    pairs(false, [&](int64_t u, int64_t p) { s0[p] = max ? std::max(s0[p], C(upd[u])) : std::min(s0[p], C(upd[u])); });
    each([&](int64_t i) { s1[i] = C(x[i]) == s0[i]; });
    pairs(false, [&](int64_t u, int64_t p) { s1[p] += C(upd[u]) == s0[p]; });
    each([&](int64_t i) { dx[i] = T(C(x[i]) == s0[i] ? C(dy[i]) / s1[i] : C(0)); });
    pairs(false, [&](int64_t u, int64_t p) { du[u] = T(C(upd[u]) == s0[p] ? C(dy[p]) / s1[p] : C(0)); });
    return;
  }
  case ScatterReduction::Mul: {  // s0 = product of the non-zero factors, s1 = number of zeros
    each([&](int64_t i) { s0[i] = C(x[i]) != 0 ? C(x[i]) : C(1), s1[i] = C(x[i]) == 0; });
    pairs(false, [&](int64_t u, int64_t p) {
      if (C(upd[u]) != 0) s0[p] *= C(upd[u]);
      else s1[p] += 1;
    });
    auto others = [&](C v, int64_t p) {  // product of the other factors, without dividing by zero
      return v != 0 ? (s1[p] > 0 ? C(0) : s0[p] / v) : (s1[p] == 1 ? s0[p] : C(0));
    };
    each([&](int64_t i) { dx[i] = T(C(dy[i]) * others(C(x[i]), i)); });
    pairs(false, [&](int64_t u, int64_t p) { du[u] = T(C(dy[p]) * others(C(upd[u]), p)); });
    return;
  }
  }
}

/// Grows ScatterElementsGrad / ScatterNDGrad: inputs dY, indices (and data, updates
/// for mul/max/min), outputs dx, du. makePairs(indices pointer) gives scatterGrad's pairs.
template <class MakePairs>
void growScatterGrad(const popx::Opx &opx, popx::Sequence &prog, ScatterReduction red, MakePairs makePairs) {
  popx::TensorView dy = opx.getInTensor(0), ind = opx.getInTensor(1), dx = opx.getOutTensor(0),
                   du = opx.getOutTensor(1);
  if (dx.nelms() == 0) return;
  const bool stats = red != ScatterReduction::None && red != ScatterReduction::Add;
  popx::TensorView x = stats ? opx.getInTensor(2) : dy, upd = stats ? opx.getInTensor(3) : du;
  dispatchIndex(ind.dtype(), [&](auto itag) {
    using I = decltype(itag);
    dispatchFloat(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const DataType ct = std::is_same_v<C, double> ? DataType::DOUBLE : DataType::FLOAT;
      popx::TensorView s = stats ? opx.createTensor(TensorInfo(ct, Shape{2 * dx.nelms()})) : popx::TensorView();
      prog.add([=] {
        C *s0 = stats ? s.data<C>() : nullptr;
        scatterGrad(red, makePairs(ind.data<I>()), dx.nelms(), dy.data<T>(), x.data<T>(), upd.data<T>(),
                    dx.data<T>(), du.data<T>(), s0, s0 ? s0 + dx.nelms() : nullptr);
      });
    });
  });
}

} // namespace popart::cpu
