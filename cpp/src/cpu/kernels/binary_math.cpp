// Mod (fmod=1: C fmod, sign of the dividend; fmod=0: integer floor modulo, sign of
// the divisor), PRelu (x < 0 ? slope x : x), ai.graphcore Atan2(y, x), Fmod,
// Remainder (sign of the divisor) and ScaledAdd (s0 a + s1 b; scales from scalar
// inputs 2/3, read at each run, or attributes). Integer division by 0 gives 0.
#include "binary_fn.hpp"
#include <cmath>
#include <type_traits>

namespace popart::cpu {
namespace {

struct FmodF {  // result has the sign of the dividend
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return C(0);
      if constexpr (std::is_signed_v<C>)
        if (b == C(-1)) return C(0);  // INT_MIN % -1 traps
      return static_cast<C>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};
struct FloorModF {  // result has the sign of the divisor (Python's %)
  template <class C> C operator()(C a, C b) const {
    C r = FmodF{}(a, b);
    if constexpr (std::is_unsigned_v<C>) return r;
    else return (r != C(0) && ((r < C(0)) != (b < C(0)))) ? static_cast<C>(r + b) : r;
  }
};
struct PReluF {
  template <class C> C operator()(C x, C slope) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else return x < C(0) ? static_cast<C>(slope * x) : x;
  }
};
struct Atan2F {
  template <class C> C operator()(C y, C x) const { return std::atan2(y, x); }
};

/// The value of scale input i (any numeric type) or, when absent, attribute `name`.
double readScale(const popx::TensorView &t, double dflt) {
  if (!t.raw()) return dflt;
  return dispatchNumeric(t.dtype(), [&](auto tag) { return double(compute_t<decltype(tag)>(t.data<decltype(tag)>()[0])); });
}

BinaryStep scaledAddStep(const BinaryFnOp &op, const BinaryTensors &t, const popx::Opx &opx) {
  popx::TensorView s0, s1;
  if (op.hasInput(2)) s0 = opx.getInTensor(2);
  if (op.hasInput(3)) s1 = opx.getInTensor(3);
  const double a0 = op.attr<Attributes::Float>("scale0", 1.0f), a1 = op.attr<Attributes::Float>("scale1", 1.0f);
  return dispatchNumeric(t.a.dtype(), [&](auto tag) -> BinaryStep {
    using T = decltype(tag);
    using A = std::conditional_t<std::is_integral_v<T>, double, compute_t<T>>;
    const T *pa = t.a.data<T>(), *pb = t.b.data<T>();
    T *po = t.o.data<T>();
    const BroadcastPlan plan = t.plan;
    return [=] {
      const A k0 = static_cast<A>(readScale(s0, a0)), k1 = static_cast<A>(readScale(s1, a1));
      runBroadcast(plan, pa, pb, po, [k0, k1](T x, T y) {
        return T(static_cast<compute_t<T>>(k0 * static_cast<A>(compute_t<T>(x)) + k1 * static_cast<A>(compute_t<T>(y))));
      });
    };
  });
}

BinaryStep binaryMathStep(const BinaryFnOp &op, const BinaryTensors &t, const popx::Opx &opx) {
  const std::string &ty = op.opid.type;
  if (ty == "Mod") {
    if (op.attr<Attributes::Int>("fmod", 0)) return sameTypeStep(t.plan, t.a, t.b, t.o, FmodF{});
    return sameTypeStep(t.plan, t.a, t.b, t.o, FloorModF{});
  }
  if (ty == "Fmod") return sameTypeStep(t.plan, t.a, t.b, t.o, FmodF{});
  if (ty == "Remainder") return sameTypeStep(t.plan, t.a, t.b, t.o, FloorModF{});
  if (ty == "PRelu") return sameTypeStep(t.plan, t.a, t.b, t.o, PReluF{});
  if (ty == "Atan2")
    return dispatchFloat(t.a.dtype(), [&](auto tag) { return binaryStep<decltype(tag), decltype(tag)>(t.plan, t.a, t.b, t.o, Atan2F{}); });
  if (ty == "ScaledAdd") return scaledAddStep(op, t, opx);
  throw error("no binary kernel for {}", ty);
}

} // namespace
static popx::OpxCreator<BinaryFnOpx<binaryMathStep>> binaryMathOpxCreator(std::vector<OperatorIdentifier>{
    onnxOp("Mod"), onnxOp("PRelu"), graphcoreOp("Atan2"), graphcoreOp("Fmod"), graphcoreOp("Remainder"),
    graphcoreOp("ScaledAdd")});
} // namespace popart::cpu
