// Winograd F(2x2, 3x3), see conv_winograd.hpp. Work items are blocks of up to
// kTiles output tiles of one image; each thread transforms a block's input
// tiles into V[16][tiles][C], multiplies V[k] by U[k] into P[16][tiles][M]
// (a register-blocked AVX-512 kernel: 6 tiles x 64 output channels), and
// transforms P back into 2x2 outputs, all in its own (cache-sized) buffers.
#include "conv_winograd.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace popart::cpu::winograd {

bool available() {
#if defined(__x86_64__)
  const char *env = std::getenv("POPART_WINOGRAD");
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 && !(env && std::string(env) == "0");
#else
  return false;
#endif
}

namespace {

constexpr int64_t kTiles = 36;  // output tiles per work item (multiple of the kernel's 6 rows)

// U = G g G^T for one 3x3 filter g (row-major), G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
void transformFilter(const float *g, float u[16]) {
  float t[4][3];
  for (int j = 0; j < 3; ++j) {
    t[0][j] = g[j];
    t[1][j] = 0.5f * (g[j] + g[3 + j] + g[6 + j]);
    t[2][j] = 0.5f * (g[j] - g[3 + j] + g[6 + j]);
    t[3][j] = g[6 + j];
  }
  for (int i = 0; i < 4; ++i) {
    u[i * 4 + 0] = t[i][0];
    u[i * 4 + 1] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
    u[i * 4 + 2] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
    u[i * 4 + 3] = t[i][2];
  }
}

} // namespace

Conv3x3::Conv3x3(const Geometry &g)
    : g_(g), tilesH_((g.oh + 1) / 2), tilesW_((g.ow + 1) / 2), u_(static_cast<size_t>(16 * g.c * g.m)) {}

void Conv3x3::setWeights(const float *w) {
  const int64_t C = g_.c, M = g_.m;
  w_ = w;
  finiteWeights_ = std::all_of(w, w + M * C * 9, [](float v) { return std::isfinite(v); });
  popx::Opx::parallelFor(M, [&](int64_t b, int64_t e) {
    float u[16];
    for (int64_t m = b; m < e; ++m)
      for (int64_t c = 0; c < C; ++c) {
        transformFilter(w + (m * C + c) * 9, u);
        for (int k = 0; k < 16; ++k) u_[static_cast<size_t>((k * C + c) * M + m)] = u[k];
      }
  }, 16);
}

#if defined(__x86_64__)
namespace {

#define POPART_AVX512 __attribute__((target("avx512f")))

// p[r][q] = sum_c v[r][c] u[c][q] for R tile rows and Q x 16 output channels (u rows of `ldu`, p rows of `ldp`).
template <int R, int Q>
POPART_AVX512 inline void product(const float *v, int64_t ldv, const float *u, int64_t ldu, float *p, int64_t ldp,
                                  int64_t C) {
  __m512 acc[R][Q];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < Q; ++q) acc[r][q] = _mm512_setzero_ps();
  for (int64_t c = 0; c < C; ++c) {
    __m512 b[Q];
    for (int q = 0; q < Q; ++q) b[q] = _mm512_loadu_ps(u + c * ldu + q * 16);
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(v[r * ldv + c]);
      for (int q = 0; q < Q; ++q) acc[r][q] = _mm512_fmadd_ps(a, b[q], acc[r][q]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < Q; ++q) _mm512_storeu_ps(p + r * ldp + q * 16, acc[r][q]);
}

// Rows [0, rows) of p = v u over all M columns, in blocks of 6 rows and 64 columns.
template <int Q>
POPART_AVX512 void productColumns(const float *v, int64_t rows, int64_t C, const float *u, int64_t M, int64_t m0,
                                  float *p) {
  int64_t r = 0;
  for (; r + 6 <= rows; r += 6) product<6, Q>(v + r * C, C, u + m0, M, p + r * M + m0, M, C);
  for (; r < rows; ++r) product<1, Q>(v + r * C, C, u + m0, M, p + r * M + m0, M, C);
}

POPART_AVX512 void products(const float *v, int64_t rows, int64_t C, const float *u, int64_t M, float *p) {
  int64_t m0 = 0;
  for (; m0 + 64 <= M; m0 += 64) productColumns<4>(v, rows, C, u, M, m0, p);
  switch ((M - m0) / 16) {
  case 3: productColumns<3>(v, rows, C, u, M, m0, p); break;
  case 2: productColumns<2>(v, rows, C, u, M, m0, p); break;
  case 1: productColumns<1>(v, rows, C, u, M, m0, p); break;
  default: break;
  }
}

// Input tile (16 channels) at top-left (h0, w0) of one image's channel block -> V[k][tile][c0..c0+16]; the
// lanes holding a non-finite value are or-ed into *nonFinite.
POPART_AVX512 void inputTile(const float *xb, int64_t H, int64_t W, int64_t h0, int64_t w0, float *v, int64_t stride,
                             __mmask16 *nonFinite) {
  __m512 d[4][4];
  const bool inside = h0 >= 0 && w0 >= 0 && h0 + 4 <= H && w0 + 4 <= W;
  const __m512 zero = _mm512_setzero_ps();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t h = h0 + i, w = w0 + j;
      d[i][j] = inside || (h >= 0 && h < H && w >= 0 && w < W) ? _mm512_loadu_ps(xb + (h * W + w) * 16) : zero;
      *nonFinite |= _mm512_cmp_ps_mask(_mm512_mul_ps(d[i][j], zero), zero, _CMP_NEQ_UQ);  // inf * 0, NaN * 0: NaN
    }
  __m512 t[4][4];  // B^T d, B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
  for (int j = 0; j < 4; ++j) {
    t[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
    t[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
    t[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
    t[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
  }
  for (int i = 0; i < 4; ++i) {  // (B^T d) B
    _mm512_storeu_ps(v + (i * 4 + 0) * stride, _mm512_sub_ps(t[i][0], t[i][2]));
    _mm512_storeu_ps(v + (i * 4 + 1) * stride, _mm512_add_ps(t[i][1], t[i][2]));
    _mm512_storeu_ps(v + (i * 4 + 2) * stride, _mm512_sub_ps(t[i][2], t[i][1]));
    _mm512_storeu_ps(v + (i * 4 + 3) * stride, _mm512_sub_ps(t[i][1], t[i][3]));
  }
}

struct Epilogue {
  const float *b, *s, *t, *z;
  bool relu;
};

// y = relu?((v + b) * s + t + z) for output channel block mb at output (oh, ow) of one image's planes zb, yb.
POPART_AVX512 inline void store(__m512 v, const Epilogue &e, int64_t mb, int64_t at, const float *zb, float *yb) {
  if (e.b) v = _mm512_add_ps(v, _mm512_loadu_ps(e.b + mb * 16));
  if (e.s) v = _mm512_add_ps(_mm512_mul_ps(v, _mm512_loadu_ps(e.s + mb * 16)), _mm512_loadu_ps(e.t + mb * 16));
  if (e.z) v = _mm512_add_ps(v, _mm512_loadu_ps(zb + at * 16));
  if (e.relu)  // keeps v > 0 and NaN (unordered), +0 elsewhere
    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NLE_UQ), v);
  _mm512_storeu_ps(yb + at * 16, v);
}

// The 2x2 outputs (16 channels of block mb) of the tile whose products P[k] are at p + k * stride.
POPART_AVX512 void outputTile(const float *p, int64_t stride, const Epilogue &e, int64_t mb, int64_t oh0, int64_t ow0,
                              int64_t OH, int64_t OW, const float *zb, float *yb) {
  __m512 m[16];
  for (int k = 0; k < 16; ++k) m[k] = _mm512_loadu_ps(p + k * stride);
  __m512 s[2][4];  // A^T m, A^T = [1 1 1 0; 0 1 -1 -1]
  for (int j = 0; j < 4; ++j) {
    s[0][j] = _mm512_add_ps(_mm512_add_ps(m[j], m[4 + j]), m[8 + j]);
    s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m[4 + j], m[8 + j]), m[12 + j]);
  }
  for (int i = 0; i < 2; ++i) {
    const __m512 o[2] = {_mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]),
                         _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3])};
    for (int j = 0; j < 2; ++j)
      if (oh0 + i < OH && ow0 + j < OW) store(o[j], e, mb, (oh0 + i) * OW + ow0 + j, zb, yb);
  }
}

// The direct convolution of output channel block mb of one image (nChw16c), summed over c, kh, kw in order.
POPART_AVX512 void directBlock(const Geometry &g, const float *w, const float *x, int64_t image, int64_t mb,
                               const Epilogue &e, float *y) {
  const int64_t C = g.c, CB = C / 16, MB = g.m / 16, plane = (image * MB + mb) * g.oh * g.ow * 16;
  alignas(64) float wv[16];
  for (int64_t oh = 0; oh < g.oh; ++oh)
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      __m512 acc = _mm512_setzero_ps();
      for (int64_t c = 0; c < C; ++c) {
        const float *xc = x + ((image * CB + c / 16) * g.h * g.w) * 16 + c % 16;
        for (int64_t kh = 0; kh < 3; ++kh)
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = oh + kh - g.padTop, iw = ow + kw - g.padLeft;
            if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
            for (int k = 0; k < 16; ++k) wv[k] = w[((mb * 16 + k) * C + c) * 9 + kh * 3 + kw];
            acc = _mm512_fmadd_ps(_mm512_set1_ps(xc[(ih * g.w + iw) * 16]), _mm512_load_ps(wv), acc);
          }
      }
      store(acc, e, mb, oh * g.ow + ow, e.z ? e.z + plane : nullptr, y + plane);
    }
}

} // namespace

// Tiles [t0, t0 + tiles) of one image; false (nothing written) when one of their inputs is not finite.
POPART_AVX512 static bool runTiles(const Geometry &g, int64_t tilesW, int64_t image, int64_t t0, int64_t tiles,
                                   const float *u, const float *x, const Epilogue &e, float *y, float *v, float *p) {
  const int64_t C = g.c, M = g.m, CB = C / 16, MB = M / 16;
  const int64_t vStride = kTiles * C, pStride = kTiles * M;
  __mmask16 nonFinite = 0;
  for (int64_t ti = 0; ti < tiles; ++ti) {
    const int64_t th = (t0 + ti) / tilesW, tw = (t0 + ti) % tilesW;
    for (int64_t cb = 0; cb < CB; ++cb)
      inputTile(x + (image * CB + cb) * g.h * g.w * 16, g.h, g.w, th * 2 - g.padTop, tw * 2 - g.padLeft,
                v + ti * C + cb * 16, vStride, &nonFinite);
  }
  if (nonFinite) return false;
  for (int k = 0; k < 16; ++k) products(v + k * vStride, tiles, C, u + k * C * M, M, p + k * pStride);
  for (int64_t ti = 0; ti < tiles; ++ti) {
    const int64_t th = (t0 + ti) / tilesW, tw = (t0 + ti) % tilesW;
    for (int64_t mb = 0; mb < MB; ++mb) {
      const int64_t plane = (image * MB + mb) * g.oh * g.ow * 16;
      outputTile(p + ti * M + mb * 16, pStride, e, mb, th * 2, tw * 2, g.oh, g.ow, e.z ? e.z + plane : nullptr,
                 y + plane);
    }
  }
  return true;
}
#endif

void Conv3x3::run(const float *x, const float *b, const float *s, const float *t, const float *z, float *y,
                  bool relu) const {
#if defined(__x86_64__)
  const int64_t tiles = tilesH_ * tilesW_, blocks = (tiles + kTiles - 1) / kTiles, MB = g_.m / 16;
  const Epilogue e{b, s, t, z, relu};
  std::atomic<bool> finite{finiteWeights_};
  if (finiteWeights_)
    popx::Opx::parallelFor(g_.n * blocks, [&](int64_t begin, int64_t end) {
      thread_local std::vector<float> v, p;  // grown once per thread to the largest convolution's block
      const auto vn = static_cast<size_t>(16 * kTiles * g_.c), pn = static_cast<size_t>(16 * kTiles * g_.m);
      if (v.size() < vn) v.resize(vn);
      if (p.size() < pn) p.resize(pn);
      for (int64_t item = begin; item < end && finite.load(std::memory_order_relaxed); ++item) {
        const int64_t image = item / blocks, t0 = item % blocks * kTiles;
        if (!runTiles(g_, tilesW_, image, t0, std::min(kTiles, tiles - t0), u_.data(), x, e, y, v.data(), p.data()))
          finite = false;
      }
    }, 1);
  if (finite) return;
  popx::Opx::parallelFor(g_.n * MB, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) directBlock(g_, w_, x, item / MB, item % MB, e, y);
  }, 1);
#else
  (void)x, (void)b, (void)s, (void)t, (void)z, (void)y, (void)relu;
#endif
}

} // namespace popart::cpu::winograd
