// Softmax / LogSoftmax over [outer, A, inner] views: rows (inner == 1) reduce
// contiguously; otherwise 256 columns at a time share running max/sum arrays.
// Stable: exponentiate x - max; float16 is staged through float32 buffers.
// Gradients from (dY, Y): plain loops per [A, inner] slab.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include "vmath.hpp"
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace popart::cpu {
namespace {

template <class C> inline C softmaxExp(C v) {
  if constexpr (std::is_same_v<C, float>) return vmath::exp(v);
  else return std::exp(v);
}

template <class T> __attribute__((always_inline)) inline void softmaxRow(const T *x, T *y, int64_t n, bool logOut) {
  using C = compute_t<T>;
  C m = -std::numeric_limits<C>::infinity(), s = 0;
#pragma omp simd reduction(max : m)
  for (int64_t i = 0; i < n; ++i) m = std::max(m, C(x[i]));
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) {
    C e = softmaxExp<C>(C(x[i]) - m);
    if (!logOut) y[i] = T(e);
    s += e;
  }
  if (logOut) {
    const C l = std::log(s);  // (x - m) - l keeps precision when |m| is large
    for (int64_t i = 0; i < n; ++i) y[i] = T((C(x[i]) - m) - l);
  } else {
    const C r = C(1) / s;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = T(C(y[i]) * r);
  }
}

POPART_SIMD_CLONES void softmaxRowF32(const float *x, float *y, int64_t n, bool logOut) {
  softmaxRow<float>(x, y, n, logOut);
}

constexpr int64_t kSoftmaxCols = 256;

// Columns [0, w) of one [A, inner] slab; x and y point at the first column.
template <class T>
__attribute__((always_inline)) inline void softmaxCols(const T *x, T *y, int64_t A, int64_t inner, int64_t w,
                                                       bool logOut) {
  using C = compute_t<T>;
  C m[kSoftmaxCols], s[kSoftmaxCols];
  for (int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<C>::infinity(), s[j] = 0;
  for (int64_t a = 0; a < A; ++a)
    for (int64_t j = 0; j < w; ++j) m[j] = std::max(m[j], C(x[a * inner + j]));
  for (int64_t a = 0; a < A; ++a)
    for (int64_t j = 0; j < w; ++j) {
      C e = softmaxExp<C>(C(x[a * inner + j]) - m[j]);
      if (!logOut) y[a * inner + j] = T(e);
      s[j] += e;
    }
  for (int64_t j = 0; j < w; ++j) s[j] = logOut ? std::log(s[j]) : C(1) / s[j];
  for (int64_t a = 0; a < A; ++a)
    for (int64_t j = 0; j < w; ++j)
      y[a * inner + j] = logOut ? T((C(x[a * inner + j]) - m[j]) - s[j]) : T(C(y[a * inner + j]) * s[j]);
}

POPART_SIMD_CLONES void softmaxColsF32(const float *x, float *y, int64_t A, int64_t inner, int64_t w, bool logOut) {
  softmaxCols<float>(x, y, A, inner, w, logOut);
}

// float16 rows / column blocks go through a per-thread float buffer.
float *halfScratch(int64_t n) {
  thread_local std::vector<float> buf;
  if (static_cast<int64_t>(buf.size()) < n) buf.resize(static_cast<size_t>(n));
  return buf.data();
}

void softmaxRowF16(const float16_t *x, float16_t *y, int64_t n, bool logOut) {
  float *b = halfScratch(n);
  halfToFloat(x, b, n);
  softmaxRowF32(b, b, n, logOut);
  floatToHalf(b, y, n);
}

void softmaxColsF16(const float16_t *x, float16_t *y, int64_t A, int64_t inner, int64_t w, bool logOut) {
  float *b = halfScratch(A * w);
  for (int64_t a = 0; a < A; ++a) halfToFloat(x + a * inner, b + a * w, w);
  softmaxColsF32(b, b, A, w, w, logOut);
  for (int64_t a = 0; a < A; ++a) floatToHalf(b + a * w, y + a * inner, w);
}

template <class T> void softmaxTyped(const T *x, T *y, int64_t outer, int64_t A, int64_t inner, bool logOut) {
  constexpr bool f32 = std::is_same_v<T, float>, f16 = std::is_same_v<T, float16_t>;
  if (inner == 1) {
    popx::Opx::parallelFor(outer, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        if constexpr (f32) softmaxRowF32(x + o * A, y + o * A, A, logOut);
        else if constexpr (f16) softmaxRowF16(x + o * A, y + o * A, A, logOut);
        else softmaxRow<T>(x + o * A, y + o * A, A, logOut);
      }
    }, std::max<int64_t>(1, 8192 / std::max<int64_t>(A, 1)));
    return;
  }
  const int64_t chunks = (inner + kSoftmaxCols - 1) / kSoftmaxCols;
  popx::Opx::parallelFor(outer * chunks, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t o = t / chunks, j0 = (t % chunks) * kSoftmaxCols, w = std::min(kSoftmaxCols, inner - j0);
      const T *xs = x + o * A * inner + j0;
      T *ys = y + o * A * inner + j0;
      if constexpr (f32) softmaxColsF32(xs, ys, A, inner, w, logOut);
      else if constexpr (f16) softmaxColsF16(xs, ys, A, inner, w, logOut);
      else softmaxCols<T>(xs, ys, A, inner, w, logOut);
    }
  }, std::max<int64_t>(1, 8192 / std::max<int64_t>(A * kSoftmaxCols, 1)));
}

struct SoftmaxView {
  int64_t outer = 1, A = 1, inner = 1;
};

// [outer, A, inner] for a non-negative axis; coerce2d folds everything after it into A.
SoftmaxView viewOf(const Shape &shape, int64_t axis, bool coerce2d) {
  SoftmaxView v;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    int64_t &part = d < axis ? v.outer : (d == axis || coerce2d ? v.A : v.inner);
    part *= shape[d];
  }
  return v;
}

// dx over one [A, inner] slab, column by column (inner == 1 is a row).
template <class T> void softmaxGradSlab(const T *dy, const T *y, T *dx, int64_t A, int64_t inner, bool logOut) {
  using C = compute_t<T>;
  for (int64_t j = 0; j < inner; ++j) {
    C s = 0;
    for (int64_t a = 0; a < A; ++a) s += logOut ? C(dy[a * inner + j]) : C(dy[a * inner + j]) * C(y[a * inner + j]);
    for (int64_t a = 0; a < A; ++a) {
      const int64_t k = a * inner + j;
      dx[k] = logOut ? T(C(dy[k]) - std::exp(C(y[k])) * s) : T(C(y[k]) * (C(dy[k]) - s));
    }
  }
}

void softmaxGrad(KernelContext &ctx) {
  const Op &op = ctx.op();
  const SoftmaxView v = viewOf(ctx.inInfo(1).shape(), op.attr<Attributes::Int>("axis", 0),
                               op.attr<Attributes::Int>("coerce2d", 0) != 0);
  const bool logOut = op.opid.type == "LogSoftmaxGrad";
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *dy = ctx.in<T>(0).data(), *y = ctx.in<T>(1).data();
    T *dx = ctx.out<T>(0).data();
    const int64_t slab = v.A * v.inner;
    popx::Opx::parallelFor(v.outer, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) softmaxGradSlab(dy + o * slab, y + o * slab, dx + o * slab, v.A, v.inner, logOut);
    }, std::max<int64_t>(1, 8192 / std::max<int64_t>(slab, 1)));
  });
}

void softmaxFwd(KernelContext &ctx) {
  const Op &op = ctx.op();
  const Shape &shape = ctx.inInfo(0).shape();
  const auto rank = static_cast<int64_t>(shape.size());
  const bool v13 = op.opid.version >= 13;
  int64_t axis = op.attr<Attributes::Int>("axis", v13 ? -1 : 1);
  if (axis < 0) axis += rank;
  const auto [outer, A, inner] = viewOf(shape, axis, !v13);
  const bool logOut = op.opid.type == "LogSoftmax";
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    softmaxTyped<T>(ctx.in<T>(0).data(), ctx.out<T>(0).data(), outer, A, inner, logOut);
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Softmax"), softmaxFwd);
POPART_REGISTER_KERNEL(onnxOp("LogSoftmax"), softmaxFwd);
POPART_REGISTER_KERNEL(internalOp("SoftmaxGrad"), softmaxGrad);
POPART_REGISTER_KERNEL(internalOp("LogSoftmaxGrad"), softmaxGrad);
} // namespace popart::cpu
