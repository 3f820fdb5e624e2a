// Max, Min, Sum, Mean over N inputs: y = f(x0, x1), then y = f(y, xk) for k >= 2,
// each pass a broadcast plan made at grow(); Mean scales in its last pass. Max/Min
// propagate NaN. One input is copied.
// <Type>ArgGrad for input k: t = dy (Sum), dy / N (Mean), dy [x_k == y] / count with
// count = #{j : x_j == y} (Max/Min, ties share), summed over k's broadcast dims.
#include "cpu/devicex.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include "sum_to_shape.hpp"
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

// cnt[i] += (y[i] == x[i]) with x broadcast by `p` (made against y's shape).
template <class T> void variadicCountTies(const BroadcastPlan &p, const T *y, const T *x, T *cnt) {
  using C = compute_t<T>;
  runBroadcastRows(p, y, x, cnt, [](const T *yr, const T *xr, T *cr, int64_t n, RowMode m) {
    const int64_t sx = m == RowMode::VV ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) cr[i] = T(C(cr[i]) + (C(yr[i]) == C(xr[i * sx]) ? C(1) : C(0)));
  });
}

// t[i] = x[i] == y[i] ? dy[i] / cnt[i] : 0 (x broadcast by `p`; dy, y, cnt, t share y's shape).
template <class T> void variadicShareTies(const BroadcastPlan &p, const T *dy, const T *y, const T *x, const T *cnt, T *t) {
  using C = compute_t<T>;
  runBroadcastRows(p, y, x, t, [=](const T *yr, const T *xr, T *tr, int64_t n, RowMode m) {
    const int64_t sx = m == RowMode::VV ? 1 : 0, off = tr - t;
    for (int64_t i = 0; i < n; ++i)
      tr[i] = C(yr[i]) == C(xr[i * sx]) ? T(C(dy[off + i]) / C(cnt[off + i])) : T(0.0f);
  });
}

class VariadicGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const std::string &t = op_p->opid.type;
    const std::string type = t.substr(0, t.size() - 7);  // strip "ArgGrad"
    const auto arg = op_p->attr<Attributes::Int>("arg");
    const auto n = op_p->attr<Attributes::Int>("n");
    auto dy = getInTensor(0), dx = getOutTensor(0);
    const Shape &out = dy.shape();
    const bool reduce = dx.nelms() != dy.nelms();
    const BroadcastPlan sumPlan = makeSumPlan(dx.shape(), out);
    const bool ties = type == "Max" || type == "Min";
    popx::TensorView full = reduce && ties ? dv_p->workspace(dy.info()) : dx;
    popx::TensorView cnt = ties ? dv_p->workspace(dy.info()) : popx::TensorView{};
    std::vector<popx::TensorView> xs;
    std::vector<BroadcastPlan> plans;
    for (int64_t j = 0; ties && j < n; ++j) {
      xs.push_back(getInTensor(static_cast<InIndex>(j + 2)));
      plans.push_back(makeBroadcastPlan(out, xs.back().shape(), out));
    }
    popx::TensorView y = ties ? getInTensor(1) : popx::TensorView{};
    const double scale = type == "Mean" ? 1.0 / static_cast<double>(n) : 1.0;
    prog.add([=] {
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        if (!ties) {
          if (reduce) sumToShape(sumPlan, dy.data<T>(), dx.data<T>(), dx.nelms());
          else copyBytes(dx.raw(), dy.raw(), dx.nbytes());
          T *d = dx.data<T>();
          if (scale != 1.0)
            for (int64_t i = 0; i < dx.nelms(); ++i) d[i] = T(C(d[i]) * C(scale));
          return;
        }
        T *c = cnt.data<T>();
        std::fill(c, c + cnt.nelms(), T(0.0f));
        for (size_t j = 0; j < xs.size(); ++j) variadicCountTies(plans[j], y.data<T>(), xs[j].data<T>(), c);
        variadicShareTies(plans[arg], dy.data<T>(), y.data<T>(), xs[arg].data<T>(), static_cast<const T *>(c),
                  full.data<T>());
        if (reduce) sumToShape(sumPlan, static_cast<const T *>(full.data<T>()), dx.data<T>(), dx.nelms());
      });
    });
  }
};

} // namespace
static popx::OpxCreator<VariadicGradOpx> variadicGradOpxCreator(std::vector<OperatorIdentifier>{
    internalOp("MaxArgGrad"), internalOp("MinArgGrad"), internalOp("SumArgGrad"), internalOp("MeanArgGrad")});
static popx::OpxCreator<VariadicOpx> variadicOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("Max"), onnxOp("Min"), onnxOp("Sum"), onnxOp("Mean")});
} // namespace popart::cpu
