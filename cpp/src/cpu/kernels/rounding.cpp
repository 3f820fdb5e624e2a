// Sign, Floor, Ceil, Round (half to even; also ai.graphcore Round and NearbyInt).
// Branch-free so float loops vectorise: round-half-even via (|x| + 2^p) - 2^p (|x| >=
// 2^p is already integral), floor as that minus 1 where it exceeds x, ceil(x) = -floor(-x).
#include "unary_fn.hpp"

namespace popart::cpu {
namespace {

template <class C> struct RoundLimits;  // 2^(mantissa bits): every |x| >= it is an integer
template <> struct RoundLimits<float> { static constexpr float big = 8388608.0f; };
template <> struct RoundLimits<double> { static constexpr double big = 4503599627370496.0; };

struct RoundEvenF {
  template <class C> C operator()(C x) const {
    using L = RoundLimits<C>;
    C a = std::fabs(x);
    C r = (a + L::big) - L::big;  // the addition rounds to nearest, ties to even
    return a < L::big ? std::copysign(r, x) : x;  // keeps -0, NaN, inf
  }
};
struct FloorF {  // float-only (no conversion to int), so loops vectorise
  template <class C> C operator()(C x) const {
    C r = RoundEvenF{}(x);
    return r > x ? r - C(1) : r;
  }
};
struct CeilF {
  template <class C> C operator()(C x) const { return -FloorF{}(-x); }
};
struct SignF {
  template <class C> C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x > C(0) ? C(1) : C(0);
    else return x > C(0) ? C(1) : (x < C(0) ? C(-1) : x);  // 0 and NaN map to themselves
  }
};

UnaryStep roundingStep(const Op &op, const popx::TensorView &x, const popx::TensorView &y) {
  const std::string t = unaryBaseType(op);
  if (t == "Sign") return numericUnaryStep(x, y, SignF{});
  if (t == "Floor") return floatUnaryStep(x, y, FloorF{});
  if (t == "Ceil") return floatUnaryStep(x, y, CeilF{});
  if (t == "Round" || t == "NearbyInt") return floatUnaryStep(x, y, RoundEvenF{});
  throw error("no rounding kernel for {}", t);
}

} // namespace
static popx::OpxCreator<UnaryFnOpx<roundingStep>> roundingOpxCreator(withInplaceIds(
    {onnxOp("Sign"), onnxOp("Floor"), onnxOp("Ceil"), onnxOp("Round"), graphcoreOp("NearbyInt")}));
static popx::OpxCreator<UnaryFnOpx<roundingStep>> roundingGcOpxCreator(graphcoreOp("Round"));
} // namespace popart::cpu
