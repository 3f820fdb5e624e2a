// QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear kernels: one
// parallel loop over the elements, the scale and zero point picked by the
// layout (per tensor, per axis index, per block); rounding is half to even
// (nearbyint in the default rounding mode) of x / s in the scale's precision,
// then saturation to the type range.
#include "dispatch.hpp"
#include "ops/quantize.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <cmath>
#include <limits>

namespace popart::cpu {
namespace {

template <class Q> Q saturate(double v) {
  return static_cast<Q>(std::clamp(v, double(std::numeric_limits<Q>::lowest()), double(std::numeric_limits<Q>::max())));
}

template <class F, class Q>
void quantizeLoop(const F *x, const F *scale, const Q *zero, Q *y, int64_t n, const QuantLayout &l) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t s = l.scaleIndex(i);
      const double z = zero ? double(zero[s]) : 0.0;
      const compute_t<F> quotient = compute_t<F>(F(compute_t<F>(x[i]) / compute_t<F>(scale[s])));  // rounded to F
      y[i] = saturate<Q>(double(std::nearbyint(quotient)) + z);
    }
  });
}

void quantizeFwd(KernelContext &ctx) {
  const QuantLayout &l = ctx.op<LinearQuantOp>().layout();
  dispatchFloat(ctx.inInfo(1).dataType(), [&](auto ftag) {
    using F = decltype(ftag);
    if (ctx.inInfo(0).dataType() != ctx.inInfo(1).dataType())
      throw error("QuantizeLinear: input 0 must have the scale's type {}", toString(ctx.inInfo(1).dataType()));
    dispatchNumeric(ctx.outInfo(0).dataType(), [&](auto qtag) {
      using Q = decltype(qtag);
      if constexpr (std::is_integral_v<Q>)
        quantizeLoop(ctx.in<F>(0).data(), ctx.in<F>(1).data(), ctx.hasInput(2) ? ctx.in<Q>(2).data() : nullptr,
                     ctx.out<Q>(0).data(), ctx.outInfo(0).nelms(), l);
    });
  });
}

void dequantizeFwd(KernelContext &ctx) {
  const QuantLayout &l = ctx.op<LinearQuantOp>().layout();
  dispatchFloat(ctx.outInfo(0).dataType(), [&](auto ftag) {
    using F = decltype(ftag);
    dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto qtag) {
      using Q = decltype(qtag);
      if constexpr (std::is_integral_v<Q>) {
        const Q *x = ctx.in<Q>(0).data(), *zero = ctx.hasInput(2) ? ctx.in<Q>(2).data() : nullptr;
        const F *scale = ctx.in<F>(1).data();
        F *y = ctx.out<F>(0).data();
        popx::Opx::parallelFor(ctx.outInfo(0).nelms(), [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            const int64_t s = l.scaleIndex(i);
            const double z = zero ? double(zero[s]) : 0.0;
            y[i] = F(static_cast<compute_t<F>>((double(x[i]) - z) * double(compute_t<F>(scale[s]))));
          }
        });
      }
    });
  });
}

void dynamicQuantizeFwd(KernelContext &ctx) {
  auto x = ctx.in<float>(0);
  float lo = 0, hi = 0;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  const float scale = (hi - lo) / 255.0f;
  const uint8_t zero = scale == 0 ? 0 : saturate<uint8_t>(std::nearbyint(double(-lo / scale)));
  ctx.out<float>(1)[0] = scale;
  ctx.out<uint8_t>(2)[0] = zero;
  uint8_t *y = ctx.out<uint8_t>(0).data();
  popx::Opx::parallelFor(x.size(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      y[i] = scale == 0 ? zero : saturate<uint8_t>(std::nearbyint(double(x[i] / scale)) + zero);
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("QuantizeLinear"), quantizeFwd);
POPART_REGISTER_KERNEL(onnxOp("DequantizeLinear"), dequantizeFwd);
POPART_REGISTER_KERNEL(onnxOp("DynamicQuantizeLinear"), dynamicQuantizeFwd);
} // namespace popart::cpu
