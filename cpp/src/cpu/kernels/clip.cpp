// Clip kernel (forward and in-place): y = min(max(x, lo), hi), NaN passes
// through. lo/hi come from inputs 1/2 when present (read at every run, so they
// may be run-time tensors), else from the opset < 11 attributes, else +-inf.
// ClipGrad (dY, X, lo?, hi?): dx = lo <= x <= hi ? dy : 0. ClipMinGrad / ClipMaxGrad:
// dlo = sum(dy [x < lo < hi]), dhi = sum(dy [x > hi or lo > hi]) (torch.clamp's
// convention), summed in double by chunk.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include "vmath.hpp"
#include <limits>
#include <mutex>

namespace popart::cpu {
namespace {

POPART_SIMD_CLONES void clipF32(const float *x, float *y, int64_t n, float lo, float hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] < lo ? lo : x[i];
    y[i] = v > hi ? hi : v;
  }
}

// The bound from input i, else attribute `name`, else the type's extreme.
template <class T> compute_t<T> clipBound(const KernelContext &ctx, InIndex i, const char *name, bool upper) {
  using C = compute_t<T>;
  if (ctx.hasInput(i)) return C(ctx.in<T>(i)[0]);
  if (ctx.op().attributes().hasAttribute(name)) return static_cast<C>(ctx.op().attr<Attributes::Float>(name));
  if constexpr (std::numeric_limits<C>::has_infinity)
    return upper ? std::numeric_limits<C>::infinity() : -std::numeric_limits<C>::infinity();
  else return upper ? std::numeric_limits<C>::max() : std::numeric_limits<C>::lowest();
}

void clipFwd(KernelContext &ctx) {
  dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C lo = clipBound<T>(ctx, 1, "min", false), hi = clipBound<T>(ctx, 2, "max", true);
    const T *x = ctx.in<T>(0).data();
    T *y = ctx.out<T>(0).data();
    popx::Opx::parallelFor(ctx.out<T>(0).size(), [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<T, float>) return clipF32(x + b, y + b, e - b, lo, hi);
      if constexpr (std::is_same_v<T, float16_t>)
        return stageHalf(x + b, y + b, e - b, [&](const float *u, float *v, int64_t n) { clipF32(u, v, n, lo, hi); });
      for (int64_t i = b; i < e; ++i) {
        C v = C(x[i]);
        v = v < lo ? lo : v;
        y[i] = T(v > hi ? hi : v);
      }
    }, kMemoryBoundGrain);
  });
}

void clipGrad(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C lo = clipBound<T>(ctx, 2, "min", false), hi = clipBound<T>(ctx, 3, "max", true);
    const T *dy = ctx.in<T>(0).data(), *x = ctx.in<T>(1).data();
    T *dx = ctx.out<T>(0).data();
    popx::Opx::parallelFor(ctx.out<T>(0).size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const C v = C(x[i]);
        dx[i] = v >= lo && v <= hi ? dy[i] : T(0.0f);
      }
    }, kMemoryBoundGrain);
  });
}

void clipBoundGrad(KernelContext &ctx) {
  const bool isMin = ctx.op().opid.type == "ClipMinGrad";
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C lo = clipBound<T>(ctx, 2, "min", false), hi = clipBound<T>(ctx, 3, "max", true);
    const T *dy = ctx.in<T>(0).data(), *x = ctx.in<T>(1).data();
    std::mutex m;
    double total = 0.0;
    popx::Opx::parallelFor(ctx.in<T>(1).size(), [&](int64_t b, int64_t e) {
      double s = 0.0;
      for (int64_t i = b; i < e; ++i) {
        const C v = C(x[i]);
        const bool hit = isMin ? (v < lo && lo < hi) : (v > hi || lo > hi);
        s += hit ? double(C(dy[i])) : 0.0;
      }
      std::lock_guard<std::mutex> lock(m);
      total += s;
    }, kMemoryBoundGrain);
    ctx.out<T>(0)[0] = T(static_cast<C>(total));
  });
}

} // namespace
POPART_REGISTER_KERNEL(internalOp("ClipGrad"), clipGrad);
POPART_REGISTER_KERNEL(internalOp("ClipMinGrad"), clipBoundGrad);
POPART_REGISTER_KERNEL(internalOp("ClipMaxGrad"), clipBoundGrad);
POPART_REGISTER_KERNEL(onnxOp("Clip"), clipFwd);
POPART_REGISTER_KERNEL(internalOp("ClipInplace"), clipFwd);
} // namespace popart::cpu
