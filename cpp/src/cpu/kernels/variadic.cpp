// Max, Min, Sum, Mean over N inputs: y = f(x0, x1), then y = f(y, xk) for k >= 2,
// each pass a broadcast plan made at grow(); Mean scales in its last pass. Max/Min
// propagate NaN. One input is copied.
#include "broadcast.hpp"
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <type_traits>

namespace popart::cpu {
namespace {

struct MaxF {
  template <class C> C operator()(C a, C b) const { return (a > b || a != a) ? a : b; }
};
struct MinF {
  template <class C> C operator()(C a, C b) const { return (a < b || a != a) ? a : b; }
};
struct SumF {
  template <class C> C operator()(C a, C b) const { return a + b; }
};
template <class C> struct MeanLastF {  // (a + b) / n
  C inv;
  C operator()(C a, C b) const { return (a + b) * inv; }
};

template <class T, class F> void foldPass(const BroadcastPlan &p, const T *a, const T *b, T *o, F f) {
  using C = compute_t<T>;
  runBroadcast(p, a, b, o, [f](T x, T y) { return T(static_cast<C>(f(C(x), C(y)))); });
}

class VariadicOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int n = op_p->input->n();
    auto y = getOutTensor(0);
    if (n == 1) {
      auto x = getInTensor(0);
      if (x.raw() != y.raw()) prog.add([x, y] { copyBytes(y.raw(), x.raw(), y.nbytes()); });
      return;
    }
    const std::string &type = op_p->opid.type;
    for (int k = 1; k < n; ++k) {
      auto a = k == 1 ? getInTensor(0) : y;
      auto b = getInTensor(k);
      BroadcastPlan plan = makeBroadcastPlan(a.shape(), b.shape(), outShape(0));
      prog.add(passStep(type, plan, a, b, y, k == n - 1 ? n : 0));
    }
  }

private:
  // One pass y = f(a, b); `meanCount` > 0 makes Mean's last pass divide by it.
  static popx::Sequence::Step passStep(const std::string &type, const BroadcastPlan &plan, const popx::TensorView &a,
                                       const popx::TensorView &b, const popx::TensorView &y, int meanCount) {
    return dispatchNumeric(a.dtype(), [&](auto tag) -> popx::Sequence::Step {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T *pa = static_cast<const T *>(a.raw()), *pb = static_cast<const T *>(b.raw());
      T *py = static_cast<T *>(y.raw());
      if (type == "Max") return [=] { foldPass(plan, pa, pb, py, MaxF{}); };
      if (type == "Min") return [=] { foldPass(plan, pa, pb, py, MinF{}); };
      if constexpr (!std::is_integral_v<T>) {  // Mean is registered for floating types only
        if (type == "Mean" && meanCount > 0) {
          MeanLastF<C> f{C(1) / static_cast<C>(meanCount)};
          return [=] { foldPass(plan, pa, pb, py, f); };
        }
      }
      if (type == "Sum" || type == "Mean") return [=] { foldPass(plan, pa, pb, py, SumF{}); };
      throw error("no variadic kernel for {}", type);
    });
  }
};

} // namespace
static popx::OpxCreator<VariadicOpx> variadicOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("Max"), onnxOp("Min"), onnxOp("Sum"), onnxOp("Mean")});
} // namespace popart::cpu
