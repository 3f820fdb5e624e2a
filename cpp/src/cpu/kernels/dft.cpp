// DFT kernel: a direct O(L * n) transform per line (outer x inner lines in
// parallel) with the angle 2 pi (j k mod L) / L, accumulated in double. The
// real inverse of a one-sided spectrum sums X[0], twice the real part of the
// rotated X[k] for 0 < k < L/2 (rounded up), and X[L/2] for even L.
#include "dispatch.hpp"
#include "ops/dft.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <cmath>

namespace popart::cpu {
namespace {

template <class T> void dft(KernelContext &ctx) {
  const DftGeometry &g = ctx.op<DftOp>().geometry();
  const T *x = ctx.in<T>(0).data();
  T *y = ctx.out<T>(0).data();
  const int64_t len = g.length, used = std::min(g.n, g.onesided && g.inverse ? len / 2 + 1 : len);
  const double sign = g.inverse ? 1.0 : -1.0, norm = g.inverse ? 1.0 / double(len) : 1.0;
  const double step = 2 * 3.14159265358979323846 / double(len);
  const int64_t outComp = g.inverse && g.onesided ? 1 : 2;
  popx::Opx::parallelFor(g.outer * g.inner, [&](int64_t b, int64_t e) {
    for (int64_t line = b; line < e; ++line) {
      const int64_t o = line / g.inner, i = line % g.inner;
      auto re = [&](int64_t j) { return double(compute_t<T>(x[((o * g.n + j) * g.inner + i) * g.inComponents])); };
      auto im = [&](int64_t j) {
        return g.inComponents == 2 ? double(compute_t<T>(x[((o * g.n + j) * g.inner + i) * 2 + 1])) : 0.0;
      };
      for (int64_t k = 0; k < g.outLen; ++k) {
        double sr = 0, si = 0;
        for (int64_t j = 0; j < used; ++j) {
          const double ang = sign * step * double((j * k) % len), c = std::cos(ang), s = std::sin(ang);
          const double xr = re(j), xi = im(j), pr = xr * c - xi * s;
          if (outComp == 1) {  // real inverse of a one-sided spectrum
            const bool single = j == 0 || (len % 2 == 0 && j == len / 2);
            sr += single ? xr * std::cos(ang) : 2 * pr;
          } else {
            sr += pr;
            si += xr * s + xi * c;
          }
        }
        T *out = y + ((o * g.outLen + k) * g.inner + i) * outComp;
        out[0] = T(static_cast<compute_t<T>>(sr * norm));
        if (outComp == 2) out[1] = T(static_cast<compute_t<T>>(si * norm));
      }
    }
  }, 1);
}

void dftFwd(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) { dft<decltype(tag)>(ctx); });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("DFT"), dftFwd);
} // namespace popart::cpu
