// Comparisons (Equal, Greater, GreaterOrEqual, Less, LessOrEqual -> BOOL), And/Or/Xor,
// bitwise And/Or/Xor/Xnor/Not, BitShift (shifts >= the bit width give 0), Not,
// IsNaN and IsInf (detect_negative/detect_positive). float16 compares in float.
#include "binary_fn.hpp"
#include "unary_fn.hpp"
#include <limits>

namespace popart::cpu {
namespace {

template <class Cmp>
BinaryStep compareStep(const BinaryTensors &t, Cmp cmp) {
  return dispatchAll(t.a.dtype(),
                     [&](auto tag) { return binaryStep<decltype(tag), bool>(t.plan, t.a, t.b, t.o, cmp); });
}

template <class F> BinaryStep integerStep(const BinaryTensors &t, F f) {
  return dispatchNumeric(t.a.dtype(), [&](auto tag) -> BinaryStep {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) return binaryStep<T, T>(t.plan, t.a, t.b, t.o, f);
    else throw error("bitwise ops need an integer type, not {}", t.a.info().data_type());
  });
}

struct ShiftF {
  bool left;
  template <class C> C operator()(C x, C s) const {
    if (s >= static_cast<C>(std::numeric_limits<C>::digits)) return C(0);
    return left ? static_cast<C>(x << s) : static_cast<C>(x >> s);
  }
};

BinaryStep logicStep(const BinaryFnOp &op, const BinaryTensors &t, const popx::Opx &) {
  const std::string &ty = op.opid.type;
  if (ty == "Equal") return compareStep(t, [](auto x, auto y) { return x == y; });
  if (ty == "Greater") return compareStep(t, [](auto x, auto y) { return x > y; });
  if (ty == "GreaterOrEqual") return compareStep(t, [](auto x, auto y) { return x >= y; });
  if (ty == "Less") return compareStep(t, [](auto x, auto y) { return x < y; });
  if (ty == "LessOrEqual") return compareStep(t, [](auto x, auto y) { return x <= y; });
  if (ty == "And") return binaryStep<bool, bool>(t.plan, t.a, t.b, t.o, [](bool x, bool y) { return x && y; });
  if (ty == "Or") return binaryStep<bool, bool>(t.plan, t.a, t.b, t.o, [](bool x, bool y) { return x || y; });
  if (ty == "Xor") return binaryStep<bool, bool>(t.plan, t.a, t.b, t.o, [](bool x, bool y) { return x != y; });
  if (ty == "BitwiseAnd") return integerStep(t, [](auto x, auto y) { return decltype(x)(x & y); });
  if (ty == "BitwiseOr") return integerStep(t, [](auto x, auto y) { return decltype(x)(x | y); });
  if (ty == "BitwiseXor") return integerStep(t, [](auto x, auto y) { return decltype(x)(x ^ y); });
  if (ty == "BitwiseXnor") return integerStep(t, [](auto x, auto y) { return decltype(x)(~(x ^ y)); });
  if (ty == "BitShift") return integerStep(t, ShiftF{op.attr<Attributes::String>("direction") == "LEFT"});
  throw error("no logic kernel for {}", ty);
}

UnaryStep logicUnaryStep(const Op &op, const popx::TensorView &x, const popx::TensorView &y) {
  const std::string t = unaryBaseType(op);
  if (t == "Not") return unaryStep<bool>(x, y, [](bool v) { return !v; });
  if (t == "BitwiseNot")
    return dispatchNumeric(x.dtype(), [&](auto tag) -> UnaryStep {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T>) return unaryStep<T>(x, y, [](T v) { return T(~v); });
      else throw error("BitwiseNot needs an integer type, not {}", x.info().data_type());
    });
  if (t == "IsNaN")
    return dispatchFloat(x.dtype(), [&](auto tag) {
      return unaryStep<decltype(tag), bool>(x, y, [](auto v) { return v != v; });
    });
  if (t == "IsInf") {
    const bool neg = op.attr<Attributes::Int>("detect_negative", 1) != 0;
    const bool pos = op.attr<Attributes::Int>("detect_positive", 1) != 0;
    return dispatchFloat(x.dtype(), [&](auto tag) {
      using C = compute_t<decltype(tag)>;
      const C inf = std::numeric_limits<C>::infinity();
      return unaryStep<decltype(tag), bool>(x, y, [=](C v) { return (pos && v == inf) || (neg && v == -inf); });
    });
  }
  throw error("no logic kernel for {}", t);
}

} // namespace
static popx::OpxCreator<BinaryFnOpx<logicStep>> logicOpxCreator(std::vector<OperatorIdentifier>{
    onnxOp("Equal"), onnxOp("Greater"), onnxOp("GreaterOrEqual"), onnxOp("Less"), onnxOp("LessOrEqual"),
    onnxOp("And"), onnxOp("Or"), onnxOp("Xor"), onnxOp("BitShift"), onnxOp("BitwiseAnd"), onnxOp("BitwiseOr"),
    onnxOp("BitwiseXor"), graphcoreOp("BitwiseAnd"), graphcoreOp("BitwiseOr"), graphcoreOp("BitwiseXor"),
    graphcoreOp("BitwiseXnor")});
static popx::OpxCreator<UnaryFnOpx<logicUnaryStep>> logicUnaryOpxCreator(
    withInplaceIds({onnxOp("Not"), onnxOp("BitwiseNot")}));
static popx::OpxCreator<UnaryFnOpx<logicUnaryStep>> logicUnaryGcOpxCreator(
    std::vector<OperatorIdentifier>{graphcoreOp("BitwiseNot"), onnxOp("IsNaN"), onnxOp("IsInf")});
} // namespace popart::cpu
