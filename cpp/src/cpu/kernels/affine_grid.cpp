// AffineGrid kernel (and its gradient): the base coordinate of each spatial
// index is computed on the fly; forward writes theta @ (base, 1) per location
// (locations in parallel), the gradient accumulates dgrid (x) (base, 1) per
// batch in double (batches in parallel).
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>

namespace popart::cpu {
namespace {

struct GridGeometry {
  int64_t n, nd, sizes[3], points;  // sizes: spatial (D,) H, W
  bool align;
  /// base (x, y[, z], 1) of location p, x from the last spatial axis.
  void base(int64_t p, double *b) const {
    for (int64_t k = 0; k < nd; ++k) {
      const int64_t axis = nd - 1 - k, len = sizes[axis];
      int64_t stride = 1;
      for (int64_t a = axis + 1; a < nd; ++a) stride *= sizes[a];
      const int64_t i = p / stride % len;
      b[k] = len <= 1 ? 0.0 : align ? -1.0 + 2.0 * double(i) / double(len - 1) : (2.0 * double(i) + 1) / double(len) - 1;
    }
    b[nd] = 1;
  }
};

GridGeometry geometry(const KernelContext &ctx, const Shape &grid) {
  GridGeometry g{grid[0], static_cast<int64_t>(grid.back()), {1, 1, 1}, 1,
                 ctx.op().attr<Attributes::Int>("align_corners", 0) != 0};
  for (int64_t a = 0; a < g.nd; ++a) g.points *= (g.sizes[a] = grid[1 + a]);
  return g;
}

void affineGridFwd(KernelContext &ctx) {
  const GridGeometry g = geometry(ctx, ctx.outInfo(0).shape());
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *theta = ctx.in<T>(0).data();
    T *y = ctx.out<T>(0).data();
    popx::Opx::parallelFor(g.n * g.points, [&](int64_t b, int64_t e) {
      double base[4];
      for (int64_t q = b; q < e; ++q) {
        g.base(q % g.points, base);
        const T *th = theta + q / g.points * g.nd * (g.nd + 1);
        for (int64_t r = 0; r < g.nd; ++r) {
          double acc = 0;
          for (int64_t c = 0; c <= g.nd; ++c) acc += double(compute_t<T>(th[r * (g.nd + 1) + c])) * base[c];
          y[q * g.nd + r] = T(static_cast<compute_t<T>>(acc));
        }
      }
    });
  });
}

void affineGridGrad(KernelContext &ctx) {
  const GridGeometry g = geometry(ctx, ctx.inInfo(0).shape());
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *dy = ctx.in<T>(0).data();
    T *dtheta = ctx.out<T>(0).data();
    popx::Opx::parallelFor(g.n, [&](int64_t b, int64_t e) {
      double base[4], acc[12];
      for (int64_t n = b; n < e; ++n) {
        std::fill(acc, acc + 12, 0.0);
        for (int64_t p = 0; p < g.points; ++p) {
          g.base(p, base);
          for (int64_t r = 0; r < g.nd; ++r)
            for (int64_t c = 0; c <= g.nd; ++c)
              acc[r * (g.nd + 1) + c] += double(compute_t<T>(dy[(n * g.points + p) * g.nd + r])) * base[c];
        }
        for (int64_t k = 0; k < g.nd * (g.nd + 1); ++k)
          dtheta[n * g.nd * (g.nd + 1) + k] = T(static_cast<compute_t<T>>(acc[k]));
      }
    }, 1);
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("AffineGrid"), affineGridFwd);
POPART_REGISTER_KERNEL(internalOp("AffineGridGrad"), affineGridGrad);
} // namespace popart::cpu
