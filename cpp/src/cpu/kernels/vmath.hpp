// Branch-free float32 approximations (<= ~2 ulp) that GCC vectorises inside
// `#pragma omp simd` loops: exp by 2^n * poly(r) range reduction, tanh and erf
// by odd polynomials near 0 and exp-based forms elsewhere; fitted coefficients.
// float16 kernels stage chunks through float buffers (F16C conversions).
#pragma once
#include "popart/half.hpp"
#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

// Array loops over these are compiled for AVX-512, AVX2+FMA and baseline x86-64,
// picked at load time (ifunc).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define POPART_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define POPART_SIMD_CLONES
#endif

namespace popart::cpu {
/// Elements per thread below which a memory-bound loop (add, abs, clip, cast)
/// stays on one thread: forking costs more than the work.
constexpr int64_t kMemoryBoundGrain = 32768;
} // namespace popart::cpu

namespace popart::cpu::vmath {

inline float bitsToFloat(int32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

/// e^x: n = round(x / ln2), r = x - n ln2 (two-part ln2), degree-7 Taylor for
/// e^r, scaled by 2^(n/2) * 2^(n - n/2) so subnormal results and overflow to
/// inf come out right. NaN propagates.
inline float exp(float x) {
  // NaN fails both comparisons and is clamped to -104 too: converting NaN to int (and shifting the negative
  // result) would be undefined behaviour; the NaN itself is returned below.
  float c = x > -104.0f ? (x < 89.0f ? x : 89.0f) : -104.0f;
  float nf = (c * 1.44269504f + 12582912.0f) - 12582912.0f;  // round to nearest
  float r = c - nf * 0.693359375f + nf * 2.12194440e-4f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t n = static_cast<int32_t>(nf), n1 = n >> 1, n2 = n - n1;
  float y = p * bitsToFloat((n1 + 127) << 23) * bitsToFloat((n2 + 127) << 23);
  return x != x ? x : y;
}

/// 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so tiny results keep precision.
inline float sigmoid(float x) {
  float e = exp(x < 0 ? x : -x);
  float s = 1.0f / (1.0f + e);
  return x < 0 ? e * s : s;
}

/// tanh: x * P(x^2) for |x| < 0.3, else sign(x) * (1 - 2 / (e^{2|x|} + 1)).
inline float tanh(float x) {
  float a = x < 0 ? -x : x;
  float z = x * x;
  float small = x * (((-0.04999830544660768f * z + 0.1331023120112617f) * z - 0.3333290519133266f) * z +
                     0.9999999878025777f);
  float big = 1.0f - 2.0f / (exp(2.0f * a) + 1.0f);
  big = x < 0 ? -big : big;
  return a < 0.3f ? small : big;
}

/// erf: x * P(x^2) for |x| < 0.9; 1 - e^{-x^2} Q(1 / (1 + x/2)) up to 3.92; then 1.
inline float erf(float x) {
  float a = x < 0 ? -x : x;
  float z = x * x;
  float small = x * ((((-0.0006175225028059684f * z + 0.005027943609594021f) * z - 0.026789357141154106f) * z +
                      0.11282416910719154f) * z - 0.37612548506621113f) * z + x * 1.1283791574329693f;
  float t = 1.0f / (1.0f + 0.5f * a);
  float q = ((((((-0.05202385750181339f * t - 0.061729748678823304f) * t + 0.40913893880009644f) * t +
                0.0978497462733564f) * t + 0.3320834911703806f) * t + 0.27337672725921053f) * t +
             0.0006259676534204257f);
  float big = a < 3.92f ? 1.0f - exp(-z) * q : 1.0f;
  big = x < 0 ? -big : big;
  return a < 0.9f ? small : (x != x ? x : big);
}

} // namespace popart::cpu::vmath

// ---- float16 staging: kernels convert chunks of half to float, run their
// float32 loop and convert back, with F16C when the CPU has it.

namespace popart::cpu {

/// Chunk length of float16 staging buffers (on the stack).
constexpr int64_t kHalfChunk = 1024;

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx,f16c"))) inline void halfToFloatF16c(const float16_t *h, float *f, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + i))));
  for (; i < n; ++i) f[i] = float(h[i]);
}
__attribute__((target("avx,f16c"))) inline void floatToHalfF16c(const float *f, float16_t *h, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(h + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(f + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) h[i] = float16_t(f[i]);
}
inline bool hasF16c() {
  static const bool yes = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return yes;
}
#endif

inline void halfToFloat(const float16_t *h, float *f, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (hasF16c()) return halfToFloatF16c(h, f, n);
#endif
  for (int64_t i = 0; i < n; ++i) f[i] = float(h[i]);
}

inline void floatToHalf(const float *f, float16_t *h, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (hasF16c()) return floatToHalfF16c(f, h, n);
#endif
  for (int64_t i = 0; i < n; ++i) h[i] = float16_t(f[i]);
}

/// y = g(x) for float16 arrays through float buffers: g(const float *, float *, n).
template <class G> void stageHalf(const float16_t *x, float16_t *y, int64_t n, G g) {
  float buf[kHalfChunk];
  for (int64_t i = 0; i < n; i += kHalfChunk) {
    const int64_t m = std::min(kHalfChunk, n - i);
    halfToFloat(x + i, buf, m);
    g(buf, buf, m);
    floatToHalf(buf, y + i, m);
  }
}

} // namespace popart::cpu
