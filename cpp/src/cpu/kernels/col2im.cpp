// Col2Im kernel: one task per (batch, channel) image, in parallel; the image
// is zeroed, then every (block offset, column) entry of x is added at its
// image position (skipped when outside). Sums accumulate in the compute type.
#include "dispatch.hpp"
#include "ops/col2im.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>

namespace popart::cpu {
namespace {

template <class T> void col2im(KernelContext &ctx) {
  const auto &axes = ctx.op<Col2ImOp>().axes();
  const int64_t nd = static_cast<int64_t>(axes.size());
  int64_t k = 1, l = 1, pixels = 1;
  for (const auto &a : axes) k *= a.block, l *= a.cols, pixels *= a.image;
  const int64_t images = ctx.outInfo(0).shape()[0] * ctx.outInfo(0).shape()[1];
  const T *x = ctx.in<T>(0).data();
  T *y = ctx.out<T>(0).data();
  popx::Opx::parallelFor(images, [&](int64_t b, int64_t e) {
    for (int64_t img = b; img < e; ++img) {
      T *out = y + img * pixels;
      std::fill(out, out + pixels, T(0.0f));
      for (int64_t kk = 0; kk < k; ++kk) {
        const T *row = x + (img * k + kk) * l;
        for (int64_t ll = 0; ll < l; ++ll) {
          int64_t offset = 0, krest = kk, lrest = ll, kstride = k, lstride = l;
          bool inside = true;
          for (int64_t a = 0; a < nd; ++a) {  // row-major multi-indices of kk and ll
            kstride /= axes[a].block, lstride /= axes[a].cols;
            const int64_t ki = krest / kstride, li = lrest / lstride;
            krest %= kstride, lrest %= lstride;
            const int64_t pos = li * axes[a].stride - axes[a].padBegin + ki * axes[a].dilation;
            inside = inside && pos >= 0 && pos < axes[a].image;
            offset = offset * axes[a].image + pos;
          }
          if (inside) out[offset] = T(compute_t<T>(out[offset]) + compute_t<T>(row[ll]));
        }
      }
    }
  }, 1);
}

void col2imFwd(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) { col2im<decltype(tag)>(ctx); });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Col2Im"), col2imFwd);
} // namespace popart::cpu
