// GridSample kernel. Per output location (in parallel over batch and
// locations): the continuous coordinate of each spatial axis, then its taps
// (index, weight): 1 for nearest, 2 for linear, 4 for cubic. Tap indices are
// resolved by the padding mode (zeros: -1 = outside; border: clamped;
// reflection: mirrored) and the product of the per-axis weights sums the
// pixels over all tap combinations, for every channel. float16 via float.
#include "dispatch.hpp"
#include "ops/grid_sample.hpp"
#include "popart/cpu/kernel.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

using Mode = GridSampleOp::Mode;
using Padding = GridSampleOp::Padding;

struct Taps {
  int64_t index[4];
  double weight[4];
  int count;
};

/// Mirrors v into [lo, hi] by repeated reflection at the nearer border.
double reflect(double v, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (v < lo) {
    const double dx = lo - v, n = std::floor(dx / range), r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const double dx = v - hi, n = std::floor(dx / range), r = dx - n * range;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return v;
}

struct AxisRule {
  int64_t size;
  double lo, hi;  // reflection borders
  Padding padding;
  /// The pixel index read for integer tap i, or -1 for a zero (outside, zeros padding).
  int64_t resolve(int64_t i) const {
    if (i >= 0 && i < size) return i;
    if (padding == Padding::Zeros) return -1;
    if (padding == Padding::Border) return i < 0 ? 0 : size - 1;
    return static_cast<int64_t>(reflect(double(i), lo, hi));
  }
};

void cubicWeights(double t, double *w) {
  const double a = -0.75, t1 = t + 1, t2 = 1 - t, t3 = 2 - t;
  w[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
  w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  w[2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
  w[3] = ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a;
}

Taps axisTaps(double g, const AxisRule &ax, Mode mode, bool align) {
  double v = align ? (g + 1) / 2 * double(ax.size - 1) : ((g + 1) * double(ax.size) - 1) / 2;
  if (mode == Mode::Nearest) v = std::nearbyint(v);
  if (v < ax.lo || v > ax.hi) {
    if (ax.padding == Padding::Border) v = std::fmin(std::fmax(v, 0.0), double(ax.size - 1));
    else if (ax.padding == Padding::Reflection) v = reflect(v, ax.lo, ax.hi);
  }
  Taps t{};
  const int64_t base = static_cast<int64_t>(std::floor(v));
  const double f = v - double(base);
  if (mode == Mode::Nearest) {
    t.count = 1;
    t.index[0] = ax.resolve(static_cast<int64_t>(v));
    t.weight[0] = 1;
  } else if (mode == Mode::Linear) {
    t.count = 2;
    t.index[0] = ax.resolve(base), t.index[1] = ax.resolve(base + 1);
    t.weight[0] = 1 - f, t.weight[1] = f;
  } else {
    t.count = 4;
    cubicWeights(f, t.weight);
    for (int k = 0; k < 4; ++k) t.index[k] = ax.resolve(base - 1 + k);
  }
  return t;
}

template <class T> void gridSample(KernelContext &ctx) {
  const auto &op = ctx.op<GridSampleOp>();
  const Shape &xs = ctx.inInfo(0).shape();
  const int nd = static_cast<int>(xs.size()) - 2;
  const int64_t n = xs[0], c = xs[1], points = ctx.inInfo(1).nelms() / (n * nd);
  int64_t plane = 1;
  AxisRule axes[3];
  for (int i = 0; i < nd; ++i) {
    const int64_t size = xs[2 + i];
    plane *= size;
    axes[i] = op.alignCorners() ? AxisRule{size, 0.0, double(size - 1), op.padding()}
                                : AxisRule{size, -0.5, double(size) - 0.5, op.padding()};
  }
  const T *x = ctx.in<T>(0).data(), *grid = ctx.in<T>(1).data();
  T *y = ctx.out<T>(0).data();
  popx::Opx::parallelFor(n * points, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t batch = p / points, point = p % points;
      Taps taps[3];
      int combos = 1;
      for (int i = 0; i < nd; ++i) {  // grid component nd-1-i addresses spatial axis i
        const double g = double(compute_t<T>(grid[p * nd + (nd - 1 - i)]));
        taps[i] = axisTaps(g, axes[i], op.mode(), op.alignCorners());
        combos *= taps[i].count;
      }
      for (int64_t ch = 0; ch < c; ++ch) {
        const T *img = x + (batch * c + ch) * plane;
        double acc = 0;
        for (int k = 0; k < combos; ++k) {
          int64_t offset = 0;
          double w = 1;
          bool inside = true;
          for (int i = 0, rest = k; i < nd; ++i) {
            const int tap = rest % taps[i].count;
            rest /= taps[i].count;
            const int64_t idx = taps[i].index[tap];
            inside = inside && idx >= 0;
            offset = offset * axes[i].size + idx;
            w *= taps[i].weight[tap];
          }
          if (inside) acc += w * double(compute_t<T>(img[offset]));
        }
        y[(batch * c + ch) * points + point] = T(static_cast<compute_t<T>>(acc));
      }
    }
  }, 64);
}

void gridSampleFwd(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) { gridSample<decltype(tag)>(ctx); });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("GridSample"), gridSampleFwd);
} // namespace popart::cpu
