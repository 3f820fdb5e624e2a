// Gradients of Add/Sub/Mul/Div for one input: t = dY (Add), -dY (Sub arg 1),
// dY * other (Mul), dY / B or -dY * (A / B) / B (Div) over the forward output's
// shape, then summed over the dims the input was broadcast along. Float types;
// float16 computes in float.
#include "broadcast.hpp"
#include "dispatch.hpp"
#include "ops/binary_arith.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

// target (broadcast form `p` against the full shape) = sum of `full` over broadcast dims.
template <class T> void sumToShape(const BroadcastPlan &p, const T *full, T *target, int64_t targetN) {
  using C = compute_t<T>;
  std::fill(target, target + targetN, T(0.0f));
  auto row = [](const T *tg, const T *f, T *, int64_t n, RowMode m) {
    T *t = const_cast<T *>(tg);  // rows of one target element are visited in sequence
    if (m == RowMode::VV) {
      for (int64_t i = 0; i < n; ++i) t[i] = T(C(t[i]) + C(f[i]));
      return;
    }
    C s = 0;
    for (int64_t i = 0; i < n; ++i) s += C(f[i]);
    t[0] = T(C(t[0]) + s);
  };
  runBroadcastRows(p, static_cast<const T *>(target), full, const_cast<T *>(full), row, false);
}

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
    popx::TensorView full = reduce ? createTensor(TensorInfo(dx.dtype(), outShape)) : dx;
    BroadcastPlan sumPlan = makeBroadcastPlan(op.fwdShape(arg), outShape, outShape);
    const std::string &type = op.arithType();
    std::vector<popx::TensorView> ins;
    for (InIndex i = 0; i < op.input->maxIndex(); ++i) ins.push_back(getInTensor(i));
    BroadcastPlan plan;  // dY (or A) against the other forward input
    if (type == "Mul") plan = makeBroadcastPlan(outShape, op.fwdShape(1 - arg), outShape);
    else if (type == "Div") plan = makeBroadcastPlan(arg == 0 ? outShape : op.fwdShape(0), op.fwdShape(1), outShape);
    const bool negative = (type == "Sub" || type == "Div") && arg == 1;
    prog.add([=] {
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        const T *dy = ins[0].data<T>();
        T *t = full.data<T>();
        const int64_t n = full.nelms();
        if (type == "Add" || type == "Sub") {
          if (!reduce) std::memcpy(t, dy, static_cast<size_t>(full.nbytes()));
          else sumToShape(sumPlan, dy, dx.data<T>(), dx.nelms()), t = nullptr;
        } else if (type == "Mul") {
          runBroadcast(plan, dy, ins[1].data<T>(), t, [](T g, T o) { return T(C(g) * C(o)); });
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
  for (const char *t : {"Add", "Sub", "Mul", "Div"})
    for (const char *a : {"0", "1"}) ids.push_back(internalOp(std::string(t) + "Arg" + a + "Grad"));
  return ids;
}

} // namespace
static popx::OpxCreator<BinaryArithGradOpx> binaryArithGradOpxCreator(gradIds());
} // namespace popart::cpu
