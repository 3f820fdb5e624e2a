// Gradients of the binary_fn ops for input `arg`: t = dY * d(out)/d(arg) over the
// output's shape (Atan2 b/(a^2+b^2) or -a/(a^2+b^2); Fmod 1 or -trunc(a/b); Remainder
// 1 or -floor(a/b); PRelu x < 0 ? slope : 1 or x < 0 ? x : 0; ScaledAdd s0 or s1),
// then summed over the dims the input was broadcast along; ScaledAdd's scales get
// sum(dY a) and sum(dY b). float16 computes in float.
#include "ops/binary_fn.hpp"
#include "strided_copy.hpp"
#include "sum_to_shape.hpp"
#include <cmath>
#include <mutex>

namespace popart::cpu {
namespace {

enum class BinaryFnKind { Atan2, PRelu, Fmod, Remainder };

BinaryFnKind binaryFnKindOf(const std::string &type) {
  if (type == "Atan2") return BinaryFnKind::Atan2;
  if (type == "PRelu") return BinaryFnKind::PRelu;
  if (type == "Fmod") return BinaryFnKind::Fmod;
  if (type == "Remainder") return BinaryFnKind::Remainder;
  throw internal_error("no binary gradient kernel for {}", type);
}

// d(out)/d(arg) at (a, b) in the compute type.
template <class C> C binaryFnPartial(BinaryFnKind k, InIndex arg, C a, C b) {
  switch (k) {
  case BinaryFnKind::Atan2: return (arg == 0 ? b : -a) / (a * a + b * b);
  case BinaryFnKind::PRelu: return arg == 0 ? (a < C(0) ? b : C(1)) : (a < C(0) ? a : C(0));
  case BinaryFnKind::Fmod: return arg == 0 ? C(1) : -std::trunc(a / b);
  case BinaryFnKind::Remainder: return arg == 0 ? C(1) : -std::floor(a / b);
  }
  return C(0);
}


class BinaryFnGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<BinaryFnGradOp>();
    const Shape &out = op.fwdOutShape();
    auto dy = getInTensor(0), dx = getOutTensor(0);
    if (op.arg() >= 2) return growScaleGrad(prog, op);
    const bool reduce = dx.nelms() != dy.nelms();
    const BroadcastPlan sumPlan = makeSumPlan(op.fwdShape(op.arg()), out);
    if (op.fnType() == "ScaledAdd") return growScaledAdd(prog, op, reduce, sumPlan);
    popx::TensorView full = reduce ? createTensor(dy.info()) : dx;
    auto a = getInTensor(1), b = getInTensor(2);
    const BroadcastPlan plan = makeBroadcastPlan(op.fwdShape(0), op.fwdShape(1), out);
    const BinaryFnKind kind = binaryFnKindOf(op.fnType());
    const InIndex arg = op.arg();
    prog.add([=] {
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        T *t = full.data<T>();
        const T *g = dy.data<T>();
        runBroadcastRows(plan, a.data<T>(), b.data<T>(), t, [&](const T *x, const T *y, T *z, int64_t n, RowMode m) {
          const int64_t sx = m == RowMode::VV || m == RowMode::VS, sy = m == RowMode::VV || m == RowMode::SV;
          const T *gr = g + (z - t);
          for (int64_t i = 0; i < n; ++i)
            z[i] = T(C(gr[i]) * binaryFnPartial<C>(kind, arg, C(x[i * sx]), C(y[i * sy])));
        });
        if (reduce) sumToShape(sumPlan, static_cast<const T *>(t), dx.data<T>(), dx.nelms());
      });
    });
  }

private:
  // ScaledAdd's scale k (input 2 or 3): dk = sum of dY * operand over the output, by chunk in double.
  void growScaleGrad(popx::Sequence &prog, const BinaryFnGradOp &op) const {
    auto dy = getInTensor(0), v = getInTensor(1), dk = getOutTensor(0);
    const Shape &out = op.fwdOutShape();
    const BroadcastPlan plan = makeBroadcastPlan(out, op.fwdShape(op.arg() - 2), out);
    prog.add([=] {
      dispatchFloat(dy.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        std::mutex m;
        double total = 0.0;
        const T *g0 = dy.data<T>();
        runBroadcastRows(plan, g0, v.data<T>(), const_cast<T *>(g0),  // rows write nothing
                         [&](const T *g, const T *x, T *, int64_t n, RowMode mode) {
          const int64_t sx = mode == RowMode::VV || mode == RowMode::SV;
          double part = 0.0;
          for (int64_t i = 0; i < n; ++i) part += double(C(g[i])) * double(C(x[i * sx]));
          std::lock_guard<std::mutex> lock(m);
          total += part;
        });
        dispatchFloat(dk.dtype(), [&](auto ktag) {
          using K = decltype(ktag);
          dk.data<K>()[0] = K(static_cast<compute_t<K>>(total));
        });
      });
    });
  }

  // dX = s * reduce(dY), s from the scale input (read at run time) or attribute.
  void growScaledAdd(popx::Sequence &prog, const BinaryFnGradOp &op, bool reduce, const BroadcastPlan &sumPlan) const {
    auto dy = getInTensor(0), dx = getOutTensor(0);
    const InIndex scaleIn = op.arg() + 3;
    popx::TensorView s = op.hasInput(scaleIn) ? getInTensor(scaleIn) : popx::TensorView{};
    const double dflt = op.attr<Attributes::Float>(op.arg() == 0 ? "scale0" : "scale1", 1.0f);
    prog.add([=] {
      const double k = !s.raw() ? dflt : dispatchNumeric(s.dtype(), [&](auto tag) {
        using S = decltype(tag);
        return double(compute_t<S>(s.data<S>()[0]));
      });
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        T *d = dx.data<T>();
        if (reduce) sumToShape(sumPlan, dy.data<T>(), d, dx.nelms());
        else copyBytes(dx.raw(), dy.raw(), dx.nbytes());
        popx::Opx::parallelFor(dx.nelms(), [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) d[i] = T(C(d[i]) * C(k));
        }, kMemoryBoundGrain);
      });
    });
  }
};

std::vector<OperatorIdentifier> binaryFnGradIds() {
  std::vector<OperatorIdentifier> ids;
  for (const char *t : {"Atan2", "Fmod", "Remainder", "PRelu", "ScaledAdd"})
    for (const char *a : {"0", "1"}) ids.push_back(internalOp(std::string(t) + "Arg" + a + "Grad"));
  ids.push_back(internalOp("ScaledAddArg2Grad"));
  ids.push_back(internalOp("ScaledAddArg3Grad"));
  return ids;
}

} // namespace
static popx::OpxCreator<BinaryFnGradOpx> binaryFnGradOpxCreator(binaryFnGradIds());
} // namespace popart::cpu
