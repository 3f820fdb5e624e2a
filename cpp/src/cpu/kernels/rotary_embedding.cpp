// RotaryEmbedding kernel: one task per (batch, position, head) row of head
// size d, in parallel; the cos/sin row comes from position_ids (INT64) or
// from (batch, position). float16 is computed in float.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"

namespace popart::cpu {
namespace {

void rotaryFwd(KernelContext &ctx) {
  const Shape &x = ctx.inInfo(0).shape();
  const bool rank4 = x.size() == 4;
  const int64_t heads = rank4 ? x[1] : ctx.op().attr<Attributes::Int>("num_heads");
  const int64_t b = x[0], s = rank4 ? x[2] : x[1], d = rank4 ? x[3] : x[2] / heads;
  const int64_t half = ctx.inInfo(1).shape().back();
  const bool interleaved = ctx.op().attr<Attributes::Int>("interleaved", 0) != 0;
  const int64_t *pos = ctx.hasInput(3) ? ctx.in<int64_t>(3).data() : nullptr;
  const int64_t maxPos = ctx.inInfo(1).shape()[0];
  for (int64_t i = 0; pos && i < b * s; ++i)
    if (pos[i] < 0 || pos[i] >= maxPos)
      throw error("RotaryEmbedding: position_ids value {} is outside [0, {})", pos[i], maxPos);
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T *in = ctx.in<T>(0).data(), *cosc = ctx.in<T>(1).data(), *sinc = ctx.in<T>(2).data();
    T *out = ctx.out<T>(0).data();
    popx::Opx::parallelFor(b * s * heads, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t bi = p / (s * heads), si = p / heads % s, h = p % heads;
        const int64_t off = rank4 ? ((bi * heads + h) * s + si) * d : (bi * s + si) * heads * d + h * d;
        const int64_t row = pos ? pos[bi * s + si] : bi * s + si;
        const T *xr = in + off;
        T *yr = out + off;
        for (int64_t i = 0; i < half; ++i) {
          const int64_t a = interleaved ? 2 * i : i, c = interleaved ? 2 * i + 1 : i + half;
          const C co = C(cosc[row * half + i]), sn = C(sinc[row * half + i]), x1 = C(xr[a]), x2 = C(xr[c]);
          yr[a] = T(co * x1 - sn * x2);
          yr[c] = T(sn * x1 + co * x2);
        }
        for (int64_t i = 2 * half; i < d; ++i) yr[i] = xr[i];
      }
    }, 16);
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("RotaryEmbedding"), rotaryFwd);
} // namespace popart::cpu
