// Plain-loop convolutions (DOUBLE, and configurations oneDNN rejects), accumulating in compute_t<T>:
//   forward  Y[n, m, o] = B[m] + sum_{c, t} X[n, c0(m) + c, o*s - pb + t*d] W[m, c, t]
//   data     dX[n, c0 + c, i] = B[c0 + c] + sum_{m in group, t, o: o*s - pb + t*d = i} dY[n, m, o] W[m, c, t]
//   weights  dW[m, c, t] = sum_{n, o} dY[n, m, o] X[n, c0(m) + c, o*s - pb + t*d]
#pragma once
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "window_util.hpp"

namespace popart::cpu {

/// One convolution y = conv(x, w) (full shapes, [N, C, in...], [M, C/G, k...], [N, M, out...]).
struct ConvShape {
  Shape x, w, y;
  int64_t group;
  WindowGeometry g;
  int64_t n() const { return x[0]; }
  int64_t c() const { return x[1]; }
  int64_t m() const { return y[1]; }
  int64_t nelmsY() const {
    int64_t k = 1;
    for (auto d : y) k *= d;
    return k;
  }
};

template <class T> struct ConvLoops {
  using Acc = compute_t<T>;
  const ConvShape &cs;
  Window3 win;
  int64_t cg, mg;
  explicit ConvLoops(const ConvShape &s) : cs(s), win(s.g), cg(s.c() / s.group), mg(s.m() / s.group) {}

  /// Calls f(t, x) for each tap t reaching output position o, with x the tap's flat input index.
  template <class F> void taps(const int64_t o[3], F &&f) const {
    for (int64_t a = 0; a < win.k[0]; ++a) {
      int64_t p0 = win.pos(0, o[0], a);
      if (!win.inside(0, p0)) continue;
      for (int64_t b = 0; b < win.k[1]; ++b) {
        int64_t p1 = win.pos(1, o[1], b);
        if (!win.inside(1, p1)) continue;
        for (int64_t c = 0; c < win.k[2]; ++c) {
          int64_t p2 = win.pos(2, o[2], c);
          if (win.inside(2, p2)) f((a * win.k[1] + b) * win.k[2] + c, (p0 * win.in[1] + p1) * win.in[2] + p2);
        }
      }
    }
  }
  void outPos(int64_t f, int64_t o[3]) const {
    o[0] = f / (win.out[1] * win.out[2]), o[1] = (f / win.out[2]) % win.out[1], o[2] = f % win.out[2];
  }

  void forward(const T *x, const T *w, const T *bias, T *y) const {
    int64_t inSize = win.inSize(), outSize = win.outSize(), kSize = win.kernelSize(), m = cs.m();
    popx::Opx::parallelFor(cs.n() * m, [&](int64_t b, int64_t e) {
      for (int64_t nm = b; nm < e; ++nm) {
        int64_t n = nm / m, mm = nm % m, c0 = (mm / mg) * cg;
        for (int64_t f = 0; f < outSize; ++f) {
          int64_t o[3];
          outPos(f, o);
          Acc acc = bias ? Acc(bias[mm]) : Acc(0);
          for (int64_t c = 0; c < cg; ++c) {
            const T *xp = x + (n * cs.c() + c0 + c) * inSize, *wp = w + (mm * cg + c) * kSize;
            taps(o, [&](int64_t t, int64_t i) { acc += Acc(xp[i]) * Acc(wp[t]); });
          }
          y[nm * outSize + f] = static_cast<T>(acc);
        }
      }
    }, 1);
  }

  /// Output position along dimension i whose tap t reads input position p, or -1.
  int64_t source(int i, int64_t p, int64_t t) const {
    int64_t q = p + win.pb[i] - t * win.d[i];
    return q < 0 || q % win.s[i] != 0 || q / win.s[i] >= win.out[i] ? -1 : q / win.s[i];
  }

  void data(const T *dy, const T *w, const T *bias, T *dx) const {
    int64_t inSize = win.inSize(), outSize = win.outSize(), kSize = win.kernelSize(), c = cs.c();
    popx::Opx::parallelFor(cs.n() * c, [&](int64_t b, int64_t e) {
      for (int64_t nc = b; nc < e; ++nc) {
        int64_t n = nc / c, ch = nc % c, m0 = (ch / cg) * mg, cc = ch % cg;
        for (int64_t p = 0; p < inSize; ++p) {
          int64_t i[3] = {p / (win.in[1] * win.in[2]), (p / win.in[2]) % win.in[1], p % win.in[2]};
          Acc acc = bias ? Acc(bias[ch]) : Acc(0);
          for (int64_t mm = m0; mm < m0 + mg; ++mm) {
            const T *yp = dy + (n * cs.m() + mm) * outSize, *wp = w + (mm * cg + cc) * kSize;
            for (int64_t a = 0; a < win.k[0]; ++a) {
              int64_t o0 = source(0, i[0], a);
              if (o0 < 0) continue;
              for (int64_t bb = 0; bb < win.k[1]; ++bb) {
                int64_t o1 = source(1, i[1], bb);
                if (o1 < 0) continue;
                for (int64_t t2 = 0; t2 < win.k[2]; ++t2) {
                  int64_t o2 = source(2, i[2], t2);
                  if (o2 < 0) continue;
                  acc += Acc(yp[(o0 * win.out[1] + o1) * win.out[2] + o2]) *
                         Acc(wp[(a * win.k[1] + bb) * win.k[2] + t2]);
                }
              }
            }
          }
          dx[nc * inSize + p] = static_cast<T>(acc);
        }
      }
    }, 1);
  }

  void weights(const T *dy, const T *x, T *dw) const {
    int64_t inSize = win.inSize(), outSize = win.outSize(), kSize = win.kernelSize(), m = cs.m();
    popx::Opx::parallelFor(m * cg * kSize, [&](int64_t b, int64_t e) {
      for (int64_t el = b; el < e; ++el) {  // el = (m * C/G + c) * kSize + tap
        int64_t mc = el / kSize, t = el % kSize, mm = mc / cg, ch = (mm / mg) * cg + mc % cg;
        int64_t tap[3] = {t / (win.k[1] * win.k[2]), (t / win.k[2]) % win.k[1], t % win.k[2]};
        Acc acc = 0;
        for (int64_t n = 0; n < cs.n(); ++n) {
          const T *yp = dy + (n * m + mm) * outSize, *xp = x + (n * cs.c() + ch) * inSize;
          for (int64_t f = 0; f < outSize; ++f) {
            int64_t o[3];
            outPos(f, o);
            int64_t p0 = win.pos(0, o[0], tap[0]), p1 = win.pos(1, o[1], tap[1]), p2 = win.pos(2, o[2], tap[2]);
            if (win.inside(0, p0) && win.inside(1, p1) && win.inside(2, p2))
              acc += Acc(yp[f]) * Acc(xp[(p0 * win.in[1] + p1) * win.in[2] + p2]);
          }
        }
        dw[el] = static_cast<T>(acc);
      }
    }, 1);
  }
};

} // namespace popart::cpu
