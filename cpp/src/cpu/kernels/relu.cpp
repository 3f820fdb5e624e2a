// Relu forward (also the in-place variant) and gradient, for float and integer types.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"

namespace popart::cpu {
namespace {

void reluFwd(KernelContext &ctx) {
  dispatchNumeric(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto x = ctx.in<T>(0);
    auto y = ctx.out<T>(0);
    popx::Opx::parallelFor(x.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        compute_t<T> v = x[i];
        y[i] = static_cast<T>(v < compute_t<T>(0) ? compute_t<T>(0) : v);  // NaN passes through
      }
    });
  });
}

void reluGrad(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto dy = ctx.in<T>(0), y = ctx.in<T>(1);
    auto dx = ctx.out<T>(0);
    popx::Opx::parallelFor(dx.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        dx[i] = static_cast<compute_t<T>>(y[i]) > 0 ? dy[i] : T(0.0f);
    });
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Relu"), reluFwd);
POPART_REGISTER_KERNEL(internalOp("ReluInplace"), reluFwd);
POPART_REGISTER_KERNEL(internalOp("ReluGrad"), reluGrad);
} // namespace popart::cpu
