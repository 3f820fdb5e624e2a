// Element-wise unary kernels (forward and in-place): Sqrt, Exp, Log, Neg, Abs,
// Reciprocal, Sigmoid, Tanh, Erf, LeakyRelu. float32 Exp/Sigmoid/Tanh/Erf use the
// vectorised approximations of vmath.hpp; float16 is staged through float32.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include "vmath.hpp"
#include <cmath>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace popart::cpu {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
// GCC keeps sqrt's errno path unless -fno-math-errno, so it will not vectorise
// std::sqrt: use the packed instruction of the widest available unit.
__attribute__((target("avx512f"))) void sqrtAvx512(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_maskz_sqrt_ps(0xffff, _mm512_loadu_ps(x + i)));
  for (; i < n; ++i) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}
__attribute__((target("avx"))) void sqrtAvx(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}
void sqrtSse(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
  for (; i < n; ++i) _mm_store_ss(y + i, _mm_sqrt_ss(_mm_load_ss(x + i)));
}
void sqrtF32(const float *x, float *y, int64_t n) {
  static const auto fn = __builtin_cpu_supports("avx512f") ? sqrtAvx512
                         : __builtin_cpu_supports("avx")   ? sqrtAvx
                                                           : sqrtSse;
  fn(x, y, n);
}
#else
void sqrtF32(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
}
#endif
POPART_SIMD_CLONES void absF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = std::fabs(x[i]);
}
POPART_SIMD_CLONES void negF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
}
POPART_SIMD_CLONES void reciprocalF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / x[i];
}
POPART_SIMD_CLONES void leakyReluF32(const float *x, float *y, int64_t n, float alpha) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
}
POPART_SIMD_CLONES void expF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = vmath::exp(x[i]);
}
POPART_SIMD_CLONES void sigmoidF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = vmath::sigmoid(x[i]);
}
POPART_SIMD_CLONES void tanhF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = vmath::tanh(x[i]);
}
POPART_SIMD_CLONES void erfF32(const float *x, float *y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = vmath::erf(x[i]);
}

/// y = f(x) over the tensor, split between threads; f works in compute_t<T>.
template <class T, class F> void mapTyped(KernelContext &ctx, F f) {
  using C = compute_t<T>;
  const T *x = ctx.in<T>(0).data();
  T *y = ctx.out<T>(0).data();
  popx::Opx::parallelFor(ctx.out<T>(0).size(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = T(static_cast<C>(f(C(x[i]))));
  });
}

/// y = g(x) with g(const float *, float *, n) for FLOAT (in place on chunks) and
/// FLOAT16 (staged through float buffers); returns false for other types.
template <class G> bool mapStaged(KernelContext &ctx, G g, int64_t grain) {
  const DataType t = ctx.inInfo(0).dataType();
  if (t == DataType::FLOAT) {
    const float *x = ctx.in<float>(0).data();
    float *y = ctx.out<float>(0).data();
    popx::Opx::parallelFor(ctx.out<float>(0).size(), [&](int64_t b, int64_t e) { g(x + b, y + b, e - b); }, grain);
    return true;
  }
  if (t == DataType::FLOAT16) {
    const float16_t *x = ctx.in<float16_t>(0).data();
    float16_t *y = ctx.out<float16_t>(0).data();
    popx::Opx::parallelFor(ctx.out<float16_t>(0).size(),
                           [&](int64_t b, int64_t e) { stageHalf(x + b, y + b, e - b, g); }, grain);
    return true;
  }
  return false;
}

/// Floating-point op: FLOAT and FLOAT16 through the array function `f32` (if any), others via `f`.
template <class F>
void mapFloat(KernelContext &ctx, void (*f32)(const float *, float *, int64_t), F f, int64_t grain = 4096) {
  if (f32 && mapStaged(ctx, f32, grain)) return;
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) { mapTyped<decltype(tag)>(ctx, f); });
}

// float16 goes through the float32 approximations; double through <cmath>.
template <class C> C unaryExp(C v) {
  if constexpr (std::is_same_v<C, float>) return vmath::exp(v);
  else return std::exp(v);
}
template <class C> C unaryTanh(C v) {
  if constexpr (std::is_same_v<C, float>) return vmath::tanh(v);
  else return std::tanh(v);
}
template <class C> C unaryErf(C v) {
  if constexpr (std::is_same_v<C, float>) return vmath::erf(v);
  else return std::erf(v);
}

void sqrtFwd(KernelContext &ctx) { mapFloat(ctx, sqrtF32, [](auto v) { return std::sqrt(v); }, kMemoryBoundGrain); }
void expFwd(KernelContext &ctx) { mapFloat(ctx, expF32, [](auto v) { return unaryExp(v); }); }
void logFwd(KernelContext &ctx) { mapFloat(ctx, nullptr, [](auto v) { return std::log(v); }); }
void sigmoidFwd(KernelContext &ctx) {
  mapFloat(ctx, sigmoidF32, [](auto v) {
    using C = decltype(v);
    C e = unaryExp(v < 0 ? v : -v), s = C(1) / (C(1) + e);
    return v < 0 ? e * s : s;
  });
}
void tanhFwd(KernelContext &ctx) { mapFloat(ctx, tanhF32, [](auto v) { return unaryTanh(v); }); }
void reciprocalFwd(KernelContext &ctx) {
  mapFloat(ctx, reciprocalF32, [](auto v) { return decltype(v)(1) / v; }, kMemoryBoundGrain);
}

void leakyReluFwd(KernelContext &ctx) {
  float alpha = ctx.op().attr<Attributes::Float>("alpha", 0.01f);
  auto f32 = [alpha](const float *x, float *y, int64_t n) { leakyReluF32(x, y, n, alpha); };
  if (mapStaged(ctx, f32, kMemoryBoundGrain)) return;
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using C = compute_t<decltype(tag)>;
    const C a = static_cast<C>(alpha);
    mapTyped<decltype(tag)>(ctx, [a](C v) { return v < C(0) ? a * v : v; });
  });
}

void erfFwd(KernelContext &ctx) {
  if (mapStaged(ctx, erfF32, 4096)) return;
  dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>)
      mapTyped<T>(ctx, [](T v) { return static_cast<T>(std::erf(double(v))); });
    else mapTyped<T>(ctx, [](auto v) { return unaryErf(v); });
  });
}

void negFwd(KernelContext &ctx) {
  if (mapStaged(ctx, negF32, kMemoryBoundGrain)) return;
  dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_unsigned_v<T>)
      throw error("Neg does not support unsigned type {}", ctx.inInfo(0).data_type());
    else mapTyped<T>(ctx, [](auto v) { return -v; });
  });
}

void absFwd(KernelContext &ctx) {
  if (mapStaged(ctx, absF32, kMemoryBoundGrain)) return;
  dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_unsigned_v<T>) mapTyped<T>(ctx, [](auto v) { return v; });
    else mapTyped<T>(ctx, [](auto v) { return v < 0 ? -v : v; });
  });
}

} // namespace
#define POPART_UNARY_KERNEL(NAME, FN)                                                                \
  POPART_REGISTER_KERNEL(onnxOp(NAME), FN);                                                          \
  POPART_REGISTER_KERNEL(internalOp(NAME "Inplace"), FN)
POPART_UNARY_KERNEL("Sqrt", sqrtFwd);
POPART_UNARY_KERNEL("Exp", expFwd);
POPART_UNARY_KERNEL("Log", logFwd);
POPART_UNARY_KERNEL("Neg", negFwd);
POPART_UNARY_KERNEL("Abs", absFwd);
POPART_UNARY_KERNEL("Reciprocal", reciprocalFwd);
POPART_UNARY_KERNEL("Sigmoid", sigmoidFwd);
POPART_UNARY_KERNEL("Tanh", tanhFwd);
POPART_UNARY_KERNEL("Erf", erfFwd);
POPART_UNARY_KERNEL("LeakyRelu", leakyReluFwd);
#undef POPART_UNARY_KERNEL
} // namespace popart::cpu
