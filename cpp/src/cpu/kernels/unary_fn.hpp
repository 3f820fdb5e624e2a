// Shared machinery of the element-wise unary kernels (rounding.cpp, trig.cpp,
// activations.cpp, logic.cpp): a functor f (templated on the compute type) becomes
// one step y[i] = f(x[i]), split between threads; float32 loops are compiled per
// vector unit, so branch-free functors vectorise.
#pragma once
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "vmath.hpp"
#include <cmath>
#include <string>
#include <type_traits>

namespace popart::cpu {

using UnaryStep = popx::Sequence::Step;

/// The op type without an "Inplace" suffix: "Floor" for Floor and FloorInplace.
inline std::string unaryBaseType(const Op &op) {
  const std::string &t = op.opid.type;
  const std::string tail = "Inplace";
  if (t.size() > tail.size() && t.compare(t.size() - tail.size(), tail.size(), tail) == 0)
    return t.substr(0, t.size() - tail.size());
  return t;
}

template <class TI, class TO, class F> POPART_SIMD_CLONES void unaryRowF32(const TI *x, TO *y, int64_t n, F f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

/// y[i] = f(x[i]) for i in [0, n): f takes compute_t<TI> and returns something convertible to TO.
template <class TI, class TO, class F> inline void unaryRow(const TI *x, TO *y, int64_t n, F f) {
  using C = compute_t<TI>;
  if constexpr (std::is_same_v<TI, float> && (std::is_same_v<TO, float> || std::is_same_v<TO, bool>)) {
    unaryRowF32(x, y, n, f);
  } else if constexpr (std::is_same_v<TI, double>) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<TO>(f(x[i]));
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = TO(static_cast<compute_t<TO>>(f(C(x[i]))));
  }
}

/// A step computing y = f(x) over whole tensors of types TI -> TO.
template <class TI, class TO = TI, class F>
UnaryStep unaryStep(const popx::TensorView &x, const popx::TensorView &y, F f) {
  const TI *px = x.data<TI>();
  TO *py = y.data<TO>();
  const int64_t n = y.nelms();
  return [=] {
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) { unaryRow(px + b, py + b, e - b, f); }, 16384);
  };
}

/// unaryStep for the floating type of x (FLOAT, FLOAT16, DOUBLE).
template <class F> UnaryStep floatUnaryStep(const popx::TensorView &x, const popx::TensorView &y, F f) {
  return dispatchFloat(x.dtype(), [&](auto tag) { return unaryStep<decltype(tag)>(x, y, f); });
}

/// unaryStep for any numeric type of x.
template <class F> UnaryStep numericUnaryStep(const popx::TensorView &x, const popx::TensorView &y, F f) {
  return dispatchNumeric(x.dtype(), [&](auto tag) { return unaryStep<decltype(tag)>(x, y, f); });
}

/// Builds the step of one op: fn(op, x, y).
using UnaryStepFactory = UnaryStep (*)(const Op &, const popx::TensorView &, const popx::TensorView &);

template <UnaryStepFactory Make> class UnaryFnOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override { prog.add(Make(*op_p, getInTensor(0), getOutTensor(0))); }
};

/// Identifiers of forward ops and, for each, its "<Type>Inplace" internal op.
inline std::vector<OperatorIdentifier> withInplaceIds(const std::vector<OperatorIdentifier> &fwd) {
  std::vector<OperatorIdentifier> ids = fwd;
  for (const auto &id : fwd) ids.push_back(internalOp(id.type + "Inplace"));
  return ids;
}

namespace ufn {
// e^x and e^x - 1 in the compute type: float through vectorisable forms, double through <cmath>.
template <class C> inline C exp(C x) {
  if constexpr (std::is_same_v<C, float>) return vmath::exp(x);
  else return std::exp(x);
}
/// e^x - 1 without cancellation near 0: Taylor series for |x| < 0.5, else e^x - 1.
template <class C> inline C expm1(C x) {
  if constexpr (std::is_same_v<C, float>) {
    float p = 1.0f / 40320;
    p = p * x + 1.0f / 5040;
    p = p * x + 1.0f / 720;
    p = p * x + 1.0f / 120;
    p = p * x + 1.0f / 24;
    p = p * x + 1.0f / 6;
    p = p * x + 0.5f;
    p = p * x + 1.0f;
    float big = vmath::exp(x) - 1.0f;
    return std::fabs(x) < 0.5f ? p * x : big;
  } else {
    return std::expm1(x);
  }
}
/// log(1 + t) for t in [0, 1] (float: 2 atanh(t / (2 + t)) by its series, |s| <= 1/3, so
/// it vectorises; double: <cmath>).
template <class C> inline C log1pUnit(C t) {
  if constexpr (std::is_same_v<C, float>) {
    float s = t / (2.0f + t), z = s * s;
    float p = 1.0f / 15;
    p = p * z + 1.0f / 13;
    p = p * z + 1.0f / 11;
    p = p * z + 1.0f / 9;
    p = p * z + 1.0f / 7;
    p = p * z + 1.0f / 5;
    p = p * z + 1.0f / 3;
    p = p * z + 1.0f;
    return 2.0f * s * p;
  } else {
    return std::log1p(t);
  }
}
template <class C> inline C tanh(C x) {
  if constexpr (std::is_same_v<C, float>) return vmath::tanh(x);
  else return std::tanh(x);
}
template <class C> inline C erf(C x) {
  if constexpr (std::is_same_v<C, float>) return vmath::erf(x);
  else return std::erf(x);
}
} // namespace ufn

} // namespace popart::cpu
