// CenterCropPad kernel (also its gradient, with x and y swapped):
// y[j] = x[j + offset] where every coordinate is in range, else 0. Rows of the
// last axis are handled in parallel: a row outside x is zero-filled, otherwise
// its in-range span is one memcpy and the rest is zeroed.
#include "ops/center_crop_pad.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

void centerCropPadFwd(KernelContext &ctx) {
  const Shape &in = ctx.inInfo(0).shape(), &out = ctx.outInfo(0).shape();
  auto *y = static_cast<char *>(ctx.outView(0).raw());
  const auto *x = static_cast<const char *>(ctx.inView(0).raw());
  const int64_t bytes = dataTypeSize(ctx.outInfo(0).dataType());
  if (out.empty()) {
    std::memcpy(y, x, static_cast<size_t>(bytes));
    return;
  }
  const std::vector<int64_t> off = centerCropPadOffsets(in, out);
  const size_t last = out.size() - 1;
  const int64_t cols = out[last], rows = cols ? ctx.outInfo(0).nelms() / cols : 0;
  const int64_t lo = std::clamp<int64_t>(-off[last], 0, cols), hi = std::clamp<int64_t>(in[last] - off[last], lo, cols);
  popx::Opx::parallelFor(rows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      char *dst = y + r * cols * bytes;
      int64_t src = 0, rest = r, stride = in[last];
      bool inside = true;
      for (size_t a = last; a-- > 0;) {
        const int64_t j = rest % out[a] + off[a];
        rest /= out[a];
        inside = inside && j >= 0 && j < in[a];
        src += j * stride;
        stride *= in[a];
      }
      if (!inside) {
        std::memset(dst, 0, static_cast<size_t>(cols * bytes));
        continue;
      }
      std::memset(dst, 0, static_cast<size_t>(lo * bytes));
      std::memcpy(dst + lo * bytes, x + (src + lo + off[last]) * bytes, static_cast<size_t>((hi - lo) * bytes));
      std::memset(dst + hi * bytes, 0, static_cast<size_t>((cols - hi) * bytes));
    }
  }, 64);
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("CenterCropPad"), centerCropPadFwd);
POPART_REGISTER_KERNEL(internalOp("CenterCropPadGrad"), centerCropPadFwd);
} // namespace popart::cpu
