// BinaryConstScalar forward (y = x op v or v op x) and gradient (dx = dy * dy/dx),
// computed in float for float16, element by element in parallel.
#include "dispatch.hpp"
#include "ops/binary_const_scalar.hpp"
#include "popart/cpu/kernel.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

using Kind = BinaryConstScalarKind;

template <class C> C apply(Kind k, C x, C v, bool left) {
  const C a = left ? v : x, b = left ? x : v;
  switch (k) {
  case Kind::Mul: return a * b;
  case Kind::Div: return a / b;
  case Kind::Add: return a + b;
  case Kind::Sub: return a - b;
  default: return std::pow(a, b);
  }
}

template <class C> C derivative(Kind k, C x, C v, bool left) {
  switch (k) {
  case Kind::Mul: return v;
  case Kind::Div: return left ? -v / (x * x) : C(1) / v;
  case Kind::Add: return C(1);
  case Kind::Sub: return left ? C(-1) : C(1);
  default: return left ? std::log(v) * std::pow(v, x) : v * std::pow(x, v - C(1));
  }
}

void binaryConstScalar(KernelContext &ctx) {
  const auto &op = ctx.op<BinaryConstScalarOp>();
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    auto x = ctx.in<T>(0);
    auto y = ctx.out<T>(0);
    const C v = C(op.value());
    popx::Opx::parallelFor(x.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = T(apply<C>(op.kind(), C(x[i]), v, op.scalarLeft()));
    });
  });
}

void binaryConstScalarGrad(KernelContext &ctx) {
  const auto &op = ctx.op<BinaryConstScalarGradOp>();
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    auto dy = ctx.in<T>(0);
    auto x = ctx.in<T>(1);
    auto dx = ctx.out<T>(0);
    const C v = C(op.value());
    popx::Opx::parallelFor(x.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dx[i] = T(C(dy[i]) * derivative<C>(op.kind(), C(x[i]), v, op.scalarLeft()));
    });
  });
}

} // namespace
POPART_REGISTER_KERNEL(graphcoreOp("BinaryConstScalar"), binaryConstScalar);
POPART_REGISTER_KERNEL(internalOp("BinaryConstScalarGrad"), binaryConstScalarGrad);
} // namespace popart::cpu
