// Gradients of the unary maths ops, from x: Sqrt dy / (2 sqrt x), Exp dy e^x,
// Log dy / x, Neg -dy, Abs dy sign(x), Reciprocal -dy / x^2, Sigmoid dy s (1 - s),
// Tanh dy (1 - t^2), Erf dy 2/sqrt(pi) e^{-x^2}, LeakyRelu x < 0 ? alpha dy : dy.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include <cmath>
#include <map>
#include <string>

namespace popart::cpu {
namespace {

enum class UnaryFn { Sqrt, Exp, Log, Neg, Abs, Reciprocal, Sigmoid, Tanh, Erf, LeakyRelu };

UnaryFn unaryFnOf(const std::string &gradType) {
  static const std::map<std::string, UnaryFn> m{
      {"SqrtGrad", UnaryFn::Sqrt}, {"ExpGrad", UnaryFn::Exp}, {"LogGrad", UnaryFn::Log}, {"NegGrad", UnaryFn::Neg},
      {"AbsGrad", UnaryFn::Abs}, {"ReciprocalGrad", UnaryFn::Reciprocal}, {"SigmoidGrad", UnaryFn::Sigmoid},
      {"TanhGrad", UnaryFn::Tanh}, {"ErfGrad", UnaryFn::Erf}, {"LeakyReluGrad", UnaryFn::LeakyRelu}};
  auto it = m.find(gradType);
  if (it == m.end()) throw error("no unary gradient kernel for {}", gradType);
  return it->second;
}

// dy * f'(x) in the compute type C.
template <class C> C unaryDerivative(UnaryFn f, C dy, C x, C alpha) {
  switch (f) {
  case UnaryFn::Sqrt: return dy / (C(2) * std::sqrt(x));
  case UnaryFn::Exp: return dy * std::exp(x);
  case UnaryFn::Log: return dy / x;
  case UnaryFn::Neg: return -dy;
  case UnaryFn::Abs: return x > C(0) ? dy : (x < C(0) ? -dy : C(0));
  case UnaryFn::Reciprocal: return -dy / (x * x);
  case UnaryFn::Sigmoid: {
    C s = C(1) / (C(1) + std::exp(-x));
    return dy * s * (C(1) - s);
  }
  case UnaryFn::Tanh: {
    C t = std::tanh(x);
    return dy * (C(1) - t * t);
  }
  case UnaryFn::Erf: return dy * C(1.1283791670955126) * std::exp(-x * x);
  case UnaryFn::LeakyRelu: return x < C(0) ? alpha * dy : dy;
  }
  return dy;
}

void unaryGrad(KernelContext &ctx) {
  const UnaryFn f = unaryFnOf(ctx.op().opid.type);
  const float alpha = ctx.op().attr<Attributes::Float>("alpha", 0.01f);
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T *dy = ctx.in<T>(0).data(), *x = ctx.in<T>(1).data();
    T *dx = ctx.out<T>(0).data();
    popx::Opx::parallelFor(ctx.out<T>(0).size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dx[i] = T(unaryDerivative<C>(f, C(dy[i]), C(x[i]), C(alpha)));
    });
  });
}

} // namespace
POPART_REGISTER_KERNEL(internalOp("SqrtGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("ExpGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("LogGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("NegGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("AbsGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("ReciprocalGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("SigmoidGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("TanhGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("ErfGrad"), unaryGrad);
POPART_REGISTER_KERNEL(internalOp("LeakyReluGrad"), unaryGrad);
} // namespace popart::cpu
