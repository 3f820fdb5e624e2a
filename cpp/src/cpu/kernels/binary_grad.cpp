// Gradients of Add/Sub/Mul/Div/Pow for one input: t = dY (Add), -dY (Sub arg 1),
// dY * other (Mul), dY / B or -dY * (A / B) / B (Div), dY * B * A^(B-1) (Pow arg 0,
// 0 where B = 0) or dY * A^B * log(A) (Pow arg 1, 0 where A = 0 and B >= 0, NaN for
// A < 0, as torch) over the forward output's shape, then summed over the dims the
// input was broadcast along. Float types; float16 computes in float.
#include "cpu/devicex.hpp"
#include "sum_to_shape.hpp"
#include "ops/binary_arith.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <cstring>

namespace popart::cpu {
namespace {

template <class T> void negateGrad(T *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = T(-compute_t<T>(x[i]));
}

class BinaryArithGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<BinaryArithGradOp>();
    const InIndex arg = op.arg();
    const Shape &outShape = op.fwdOutShape();
    auto dx = getOutTensor(0);
    const bool reduce = dx.nelms() != TensorInfo(dx.dtype(), outShape).nelms();
    const std::string &type = op.arithType();
    // Add/Sub sum dY to the input's shape directly; the others compute over the output's shape first.
    const bool direct = type == "Add" || type == "Sub";
    popx::TensorView full = reduce && !direct ? dv_p->workspace(TensorInfo(dx.dtype(), outShape)) : dx;
    BroadcastPlan sumPlan = makeSumPlan(op.fwdShape(arg), outShape);
    std::vector<popx::TensorView> ins;
    for (InIndex i = 0; i < op.input->maxIndex(); ++i) ins.push_back(getInTensor(i));
    BroadcastPlan plan;  // dY (or A) against the other forward input
    if (type == "Mul") plan = makeBroadcastPlan(outShape, op.fwdShape(1 - arg), outShape);
    else if (type == "Pow") plan = makeBroadcastPlan(op.fwdShape(0), op.fwdShape(1), outShape);
    else if (type == "Div") plan = makeBroadcastPlan(arg == 0 ? outShape : op.fwdShape(0), op.fwdShape(1), outShape);
    const bool negative = (type == "Sub" || type == "Div") && arg == 1;
    prog.add([=] {
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        const T *dy = ins[0].data<T>();
        T *t = full.data<T>();
        const int64_t n = full.nelms();
        if (direct) {
          if (!reduce) std::memcpy(t, dy, static_cast<size_t>(full.nbytes()));
          else sumToShape(sumPlan, dy, dx.data<T>(), dx.nelms()), t = nullptr;
        } else if (type == "Mul") {
          runBroadcast(plan, dy, ins[1].data<T>(), t, [](T g, T o) { return T(C(g) * C(o)); });
        } else if (type == "Pow") {
          dispatchNumeric(ins[2].dtype(), [&](auto expTag) {  // the exponent may be an integer
            using E = decltype(expTag);
            runBroadcast(plan, ins[1].data<T>(), ins[2].data<E>(), t, [arg](T ta, E te) {
              const C a = C(ta), b = static_cast<C>(compute_t<E>(te));
              if (arg == 0) return T(b == C(0) ? C(0) : b * std::pow(a, b - C(1)));
              return T(a == C(0) && b >= C(0) ? C(0) : std::pow(a, b) * std::log(a));
            });
          });
          for (int64_t i = 0; i < n; ++i) t[i] = T(C(t[i]) * C(dy[i]));
        } else if (arg == 0) {  // Div: dY / B
          runBroadcast(plan, dy, ins[1].data<T>(), t, [](T g, T b) { return T(C(g) / C(b)); });
        } else {  // Div: -dY * (A / B) / B
          runBroadcast(plan, ins[1].data<T>(), ins[2].data<T>(), t, [](T a, T b) { return T(C(a) / C(b) / C(b)); });
          for (int64_t i = 0; i < n; ++i) t[i] = T(C(t[i]) * C(dy[i]));
        }
        if (t && reduce) sumToShape(sumPlan, static_cast<const T *>(t), dx.data<T>(), dx.nelms());
        if (negative) negateGrad(dx.data<T>(), dx.nelms());
      });
    });
  }
};

std::vector<OperatorIdentifier> gradIds() {
  std::vector<OperatorIdentifier> ids;
  for (const char *t : {"Add", "Sub", "Mul", "Div", "Pow"})
    for (const char *a : {"0", "1"}) ids.push_back(internalOp(std::string(t) + "Arg" + a + "Grad"));
  return ids;
}

} // namespace
static popx::OpxCreator<BinaryArithGradOpx> binaryArithGradOpxCreator(gradIds());
} // namespace popart::cpu
