// Kernel of AllReduce across the IPUs of a replica and of its gradient
// (ops/allreduce.cpp): y_0 = op(x_0, ..., x_{N-1}) folded element by element in
// the compute type (Mean divides once at the end), then copied to y_1 .. y_{N-1};
// or, for a pass-through op, y_i = x_i.
#include "cpu/devicex.hpp"
#include "dispatch.hpp"
#include "ops/allreduce.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <vector>

namespace popart::cpu {
namespace {

/// The fold of one element over the inputs.
template <class T> struct Fold {
  using C = compute_t<T>;
  int64_t reduction;
  C operator()(C a, C b) const {
    switch (reduction) {
    case allreduce::kMul: return a * b;
    case allreduce::kMin: return (a < b || a != a) ? a : b;
    case allreduce::kMax: return (a > b || a != a) ? a : b;
    default: return a + b;  // Add, Mean
    }
  }
};

template <class T> void reduceInto(T *y, const std::vector<const T *> &xs, int64_t n, int64_t reduction) {
  using C = compute_t<T>;
  const Fold<T> f{reduction};
  const C count = static_cast<C>(xs.size());
  for (int64_t e = 0; e < n; ++e) {
    C acc = static_cast<C>(xs[0][e]);
    for (size_t k = 1; k < xs.size(); ++k) acc = f(acc, static_cast<C>(xs[k][e]));
    y[e] = T(reduction == allreduce::kMean ? static_cast<C>(acc / count) : acc);
  }
}

class AllReduceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int n = op_p->input->n();
    std::vector<popx::TensorView> xs, ys;
    for (int i = 0; i < n; ++i) {
      xs.push_back(getInTensor(i));
      ys.push_back(getOutTensor(i));
    }
    if (allreduce::passesThrough(*op_p)) {
      for (int i = 0; i < n; ++i)
        if (xs[i].raw() != ys[i].raw()) prog.add([x = xs[i], y = ys[i]] { copyBytes(y.raw(), x.raw(), y.nbytes()); });
      return;
    }
    prog.add(reduceStep(xs, ys[0], allreduce::reduction(*op_p)));
    for (int i = 1; i < n; ++i) prog.add([y0 = ys[0], y = ys[i]] { copyBytes(y.raw(), y0.raw(), y.nbytes()); });
  }

private:
  static popx::Sequence::Step reduceStep(const std::vector<popx::TensorView> &xs, const popx::TensorView &y,
                                         int64_t reduction) {
    return dispatchNumeric(y.dtype(), [&](auto tag) -> popx::Sequence::Step {
      using T = decltype(tag);
      std::vector<const T *> in;
      for (const auto &x : xs) in.push_back(static_cast<const T *>(x.raw()));
      T *out = static_cast<T *>(y.raw());
      const int64_t count = y.nelms();
      return [in, out, count, reduction] { reduceInto(out, in, count, reduction); };
    });
  }
};

} // namespace
static popx::OpxCreator<AllReduceOpx> POPART_UNIQUE_NAME(allReduceOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("AllReduce"), internalOp("AllReduceGrad")});
} // namespace popart::cpu
