// Add, Sub, Mul, Div, Pow kernels (forward and in-place): o = f(a, b) over a
// broadcast plan made once at grow(). float16 is staged through float; integer Div
// truncates (x / 0 gives 0); Pow with a one-element exponent has fast paths.
#include "broadcast.hpp"
#include "dispatch.hpp"
#include "ops/binary_arith.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "vmath.hpp"
#include <cmath>
#include <type_traits>

namespace popart::cpu {
namespace {

struct AddF { template <class C> C operator()(C a, C b) const { return a + b; } };
struct SubF { template <class C> C operator()(C a, C b) const { return a - b; } };
struct MulF { template <class C> C operator()(C a, C b) const { return a * b; } };
struct DivF {
  template <class C> C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>)  // -1 separately: INT_MIN / -1 traps
        if (b == -1) return static_cast<C>(std::make_unsigned_t<C>(0) - static_cast<std::make_unsigned_t<C>>(a));
    }
    return a / b;
  }
};

// Integer power by squaring; negative exponents truncate 1 / a^|e| toward 0.
template <class T, class E> T intPow(T a, E e) {
  if (e < 0) return a == 1 ? T(1) : a == -1 ? T((e % 2) ? -1 : 1) : T(0);
  T r = 1;
  for (auto k = static_cast<std::make_unsigned_t<E>>(e); k; k >>= 1, a = static_cast<T>(a * a))
    if (k & 1) r = static_cast<T>(r * a);
  return r;
}

template <class T, class E> T powElem(T a, E e) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<E>) return intPow(a, e);
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(std::pow(double(a), double(e)));
  else {
    using C = compute_t<T>;
    return T(static_cast<C>(std::pow(C(a), static_cast<C>(compute_t<E>(e)))));
  }
}

// float32 rows for the four operators, compiled per vector unit.
POPART_SIMD_CLONES void arithRowF32(const float *x, const float *y, float *z, int64_t n, RowMode m, char op) {
  switch (op) {
  case '+': return broadcastRow(x, y, z, n, m, AddF{});
  case '-': return broadcastRow(x, y, z, n, m, SubF{});
  case '*': return broadcastRow(x, y, z, n, m, MulF{});
  default: return broadcastRow(x, y, z, n, m, DivF{});
  }
}

template <class F> constexpr char opChar() {
  if constexpr (std::is_same_v<F, AddF>) return '+';
  else if constexpr (std::is_same_v<F, SubF>) return '-';
  else if constexpr (std::is_same_v<F, MulF>) return '*';
  else return '/';
}

// A float16 row in float: inputs read as vectors are converted chunk by chunk.
void arithRowF16(const float16_t *x, const float16_t *y, float16_t *z, int64_t n, RowMode m, char op) {
  const bool vx = m == RowMode::VV || m == RowMode::VS, vy = m == RowMode::VV || m == RowMode::SV;
  float bx[kHalfChunk], by[kHalfChunk], bz[kHalfChunk];
  if (!vx) bx[0] = float(x[0]);
  if (!vy) by[0] = float(y[0]);
  for (int64_t i = 0; i < n; i += kHalfChunk) {
    const int64_t len = std::min(kHalfChunk, n - i);
    if (vx) halfToFloat(x + i, bx, len);
    if (vy) halfToFloat(y + i, by, len);
    arithRowF32(bx, by, bz, len, m, op);
    floatToHalf(bz, z + i, len);
  }
}

template <class T, class F> void runArith(const BroadcastPlan &p, const void *a, const void *b, void *o, F f) {
  using C = compute_t<T>;
  if constexpr (std::is_same_v<T, float16_t>) {
    return runBroadcastRows(p, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(o),
                            [](const T *x, const T *y, T *z, int64_t n, RowMode m) {
                              arithRowF16(x, y, z, n, m, opChar<F>());
                            });
  }
  if constexpr (std::is_same_v<T, float>) {
    return runBroadcastRows(p, static_cast<const float *>(a), static_cast<const float *>(b), static_cast<float *>(o),
                            [](const float *x, const float *y, float *z, int64_t n, RowMode m) {
                              arithRowF32(x, y, z, n, m, opChar<F>());
                            });
  }
  runBroadcast(p, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(o),
               [f](T x, T y) { return T(static_cast<C>(f(C(x), C(y)))); });
}

// x^e for one exponent value: common exponents avoid pow().
template <class T> void powScalar(const T *x, T *y, int64_t n, double e) {
  using C = compute_t<T>;
  constexpr bool fp = !std::is_integral_v<T>;
  auto map = [x, y](int64_t s, int64_t t, auto f) {
    forEachIndex<fp>(t - s, [&](int64_t i) { y[s + i] = f(x[s + i]); });
  };
  popx::Opx::parallelFor(n, [&](int64_t s, int64_t t) {
    if (e == 2.0) map(s, t, [](T v) { return T(static_cast<C>(C(v) * C(v))); });
    else if (e == 1.0) map(s, t, [](T v) { return v; });
    else if (fp && e == 0.5) map(s, t, [](T v) { return T(static_cast<C>(std::sqrt(C(v)))); });
    else if (fp && e == -1.0) map(s, t, [](T v) { return T(static_cast<C>(C(1) / C(v))); });
    else map(s, t, [e](T v) { return powElem(v, e); });
  }, 16384);
}

template <class T, class E>
void runPow(const BroadcastPlan &p, const void *a, const void *b, void *o, int64_t nb, int64_t no) {
  const T *x = static_cast<const T *>(a);
  const E *e = static_cast<const E *>(b);
  if (nb == 1 && (!std::is_integral_v<T> || !std::is_integral_v<E>))  // output has a's layout
    return powScalar(x, static_cast<T *>(o), no, double(compute_t<E>(e[0])));
  runBroadcast(p, x, e, static_cast<T *>(o), [](T u, E v) { return powElem(u, v); });
}

using ArithStep = std::function<void()>;

ArithStep arithStep(const std::string &type, const BroadcastPlan &p, const popx::TensorView &a,
               const popx::TensorView &b, const popx::TensorView &o) {
  const void *pa = a.raw(), *pb = b.raw();
  void *po = o.raw();
  return dispatchNumeric(a.dtype(), [&](auto tag) -> ArithStep {
    using T = decltype(tag);
    if (type == "Add") return [=] { runArith<T>(p, pa, pb, po, AddF{}); };
    if (type == "Sub") return [=] { runArith<T>(p, pa, pb, po, SubF{}); };
    if (type == "Mul") return [=] { runArith<T>(p, pa, pb, po, MulF{}); };
    if (type == "Div") return [=] { runArith<T>(p, pa, pb, po, DivF{}); };
    throw error("no arithmetic kernel for {}", type);
  });
}

template <class T>
ArithStep powStep(const BroadcastPlan &p, const popx::TensorView &a, const popx::TensorView &b,
             const popx::TensorView &o) {
  const void *pa = a.raw(), *pb = b.raw();
  void *po = o.raw();
  int64_t nb = b.nelms(), no = o.nelms();
  return dispatchNumeric(b.dtype(), [&](auto etag) -> ArithStep {
    using E = decltype(etag);
    return [=] { runPow<T, E>(p, pa, pb, po, nb, no); };
  });
}

class BinaryArithOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<BinaryArithOp>();
    BroadcastPlan plan = makeBroadcastPlan(op.broadcastShape(0), op.broadcastShape(1), outShape(0));
    auto a = getInTensor(0), b = getInTensor(1), o = getOutTensor(0);
    if (op.arithType() != "Pow") {
      prog.add(arithStep(op.arithType(), plan, a, b, o));
      return;
    }
    switch (a.dtype()) {
    case DataType::FLOAT: prog.add(powStep<float>(plan, a, b, o)); break;
    case DataType::FLOAT16: prog.add(powStep<float16_t>(plan, a, b, o)); break;
    case DataType::DOUBLE: prog.add(powStep<double>(plan, a, b, o)); break;
    case DataType::INT32: prog.add(powStep<int32_t>(plan, a, b, o)); break;
    case DataType::INT64: prog.add(powStep<int64_t>(plan, a, b, o)); break;
    default: throw error("Pow base type {} is not supported", a.info().data_type());
    }
  }
};

std::vector<OperatorIdentifier> arithIds() {
  std::vector<OperatorIdentifier> ids;
  for (const char *t : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    ids.push_back(onnxOp(t));
    ids.push_back(internalOp(std::string(t) + "LhsInplace"));
    if (std::string(t) != "Pow") ids.push_back(internalOp(std::string(t) + "RhsInplace"));
  }
  return ids;
}

} // namespace
static popx::OpxCreator<BinaryArithOpx> binaryArithOpxCreator(arithIds());
} // namespace popart::cpu
