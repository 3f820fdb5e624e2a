// Mod (fmod=1: C fmod, sign of the dividend; fmod=0: integer floor modulo, sign of
// the divisor), PRelu (x < 0 ? slope x : x), ai.graphcore Atan2(y, x), Fmod,
// Remainder (sign of the divisor) and ScaledAdd (s0 a + s1 b; scales from scalar
// inputs 2/3, read at each run, or attributes). Integer division by 0 gives 0;
// float32 modulo takes a vectorised exact path through double.
#include "binary_fn.hpp"
#include "vmath.hpp"
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
// float32 fmod through double: when |a| < 2^24 |b| (b finite) the truncated quotient
// is exact and so is a - q b; the row is branch-free (truncation by the 2^52 trick)
// and compiled per vector unit. Other elements (huge quotients, b = 0 or inf, NaN)
// are then redone with std::fmod.
template <bool FloorMod> struct FmodF32Fast {
  float operator()(float a, float b) const {
    const double q = double(a) / double(b), aq = std::fabs(q);
    double t = (aq + 4503599627370496.0) - 4503599627370496.0;  // nearest integer to |q|
    t = t > aq ? t - 1.0 : t;                                     // truncated
    const float r = std::copysign(float(double(a) - std::copysign(t, q) * double(b)), a);
    if constexpr (FloorMod) {  // signs differ: move to the divisor's side (no && : keeps it a select)
      const bool adjust = ((r < 0.0f) & (b > 0.0f)) | ((r > 0.0f) & (b < 0.0f));
      return adjust ? r + b : r;
    }
    return r;
  }
};
inline bool fmodFastValid(float a, float b) {
  return std::fabs(double(a)) < 16777216.0 * std::fabs(double(b)) && std::fabs(b) < 3.0e38f;
}

template <bool FloorMod>
POPART_SIMD_CLONES void fmodRowF32(const float *x, const float *y, float *z, int64_t n, RowMode m) {
  broadcastRow(x, y, z, n, m, FmodF32Fast<FloorMod>{});
  const int64_t sx = m == RowMode::VV || m == RowMode::VS, sy = m == RowMode::VV || m == RowMode::SV;
  for (int64_t i = 0; i < n; ++i) {
    const float a = x[i * sx], b = y[i * sy];
    if (!fmodFastValid(a, b)) z[i] = FloorMod ? FloorModF{}(a, b) : FmodF{}(a, b);
  }
}

template <bool FloorMod> BinaryStep fmodF32Step(const BinaryTensors &t) {
  const float *pa = t.a.data<float>(), *pb = t.b.data<float>();
  float *po = t.o.data<float>();
  const BroadcastPlan plan = t.plan;
  return [=] { runBroadcastRows(plan, pa, pb, po, fmodRowF32<FloorMod>); };
}

/// Mod/Fmod/Remainder: the float32 fast path, or the generic functor.
BinaryStep modStep(const BinaryTensors &t, bool floorMod) {
  if (t.a.dtype() == DataType::FLOAT) return floorMod ? fmodF32Step<true>(t) : fmodF32Step<false>(t);
  if (floorMod) return sameTypeStep(t.plan, t.a, t.b, t.o, FloorModF{});
  return sameTypeStep(t.plan, t.a, t.b, t.o, FmodF{});
}

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
  return dispatchNumeric(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return double(compute_t<T>(t.data<T>()[0]));
  });
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
        const A u = static_cast<A>(compute_t<T>(x)), v = static_cast<A>(compute_t<T>(y));
        return T(static_cast<compute_t<T>>(k0 * u + k1 * v));
      });
    };
  });
}

BinaryStep binaryMathStep(const BinaryFnOp &op, const BinaryTensors &t, const popx::Opx &opx) {
  const std::string &ty = op.opid.type;
  if (ty == "Mod") return modStep(t, op.attr<Attributes::Int>("fmod", 0) == 0);
  if (ty == "Fmod") return modStep(t, false);
  if (ty == "Remainder") return modStep(t, true);
  if (ty == "PRelu") return sameTypeStep(t.plan, t.a, t.b, t.o, PReluF{});
  if (ty == "Atan2")
    return dispatchFloat(t.a.dtype(), [&](auto tag) {
      return binaryStep<decltype(tag), decltype(tag)>(t.plan, t.a, t.b, t.o, Atan2F{});
    });
  if (ty == "ScaledAdd") return scaledAddStep(op, t, opx);
  throw error("no binary kernel for {}", ty);
}

} // namespace
static popx::OpxCreator<BinaryFnOpx<binaryMathStep>> binaryMathOpxCreator(std::vector<OperatorIdentifier>{
    onnxOp("Mod"), onnxOp("PRelu"), graphcoreOp("Atan2"), graphcoreOp("Fmod"), graphcoreOp("Remainder"),
    graphcoreOp("ScaledAdd")});
} // namespace popart::cpu
