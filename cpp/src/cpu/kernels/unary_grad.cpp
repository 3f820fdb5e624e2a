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

enum class Fn { Sqrt, Exp, Log, Neg, Abs, Reciprocal, Sigmoid, Tanh, Erf, LeakyRelu };

Fn fnOf(const std::string &gradType) {
  static const std::map<std::string, Fn> m{
      {"SqrtGrad", Fn::Sqrt}, {"ExpGrad", Fn::Exp}, {"LogGrad", Fn::Log}, {"NegGrad", Fn::Neg},
      {"AbsGrad", Fn::Abs}, {"ReciprocalGrad", Fn::Reciprocal}, {"SigmoidGrad", Fn::Sigmoid},
      {"TanhGrad", Fn::Tanh}, {"ErfGrad", Fn::Erf}, {"LeakyReluGrad", Fn::LeakyRelu}};
  auto it = m.find(gradType);
  if (it == m.end()) throw error("no unary gradient kernel for {}", gradType);
  return it->second;
}

// dy * f'(x) in the compute type C.
template <class C> C derivative(Fn f, C dy, C x, C alpha) {
  switch (f) {
  case Fn::Sqrt: return dy / (C(2) * std::sqrt(x));
  case Fn::Exp: return dy * std::exp(x);
  case Fn::Log: return dy / x;
  case Fn::Neg: return -dy;
  case Fn::Abs: return x > C(0) ? dy : (x < C(0) ? -dy : C(0));
  case Fn::Reciprocal: return -dy / (x * x);
  case Fn::Sigmoid: {
    C s = C(1) / (C(1) + std::exp(-x));
    return dy * s * (C(1) - s);
  }
  case Fn::Tanh: {
    C t = std::tanh(x);
    return dy * (C(1) - t * t);
  }
  case Fn::Erf: return dy * C(1.1283791670955126) * std::exp(-x * x);
  case Fn::LeakyRelu: return x < C(0) ? alpha * dy : dy;
  }
  return dy;
}

void unaryGrad(KernelContext &ctx) {
  const Fn f = fnOf(ctx.op().opid.type);
  const float alpha = ctx.op().attr<Attributes::Float>("alpha", 0.01f);
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T *dy = ctx.in<T>(0).data(), *x = ctx.in<T>(1).data();
    T *dx = ctx.out<T>(0).data();
    popx::Opx::parallelFor(ctx.out<T>(0).size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dx[i] = T(derivative<C>(f, C(dy[i]), C(x[i]), C(alpha)));
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
