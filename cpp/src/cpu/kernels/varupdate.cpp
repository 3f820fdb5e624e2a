// OptimizerVarUpdate and GradAccumulate kernels. The var update
// picks its algorithm once at grow() and reads hyper-parameters at run time.
#include "varupdate.hpp"
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

std::map<std::string, VarUpdateFn> &algorithms() {
  static std::map<std::string, VarUpdateFn> m;
  return m;
}

class VarUpdateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &name = op_p->attr<Attributes::String>("algorithm");
    auto it = algorithms().find(name);
    if (it == algorithms().end()) throw error("no update kernel for optimizer algorithm '{}'", name);
    VarUpdateArgs args{getInTensor(0), getInTensor(1), getInTensor(2).data<float>(), {}, {}};
    for (int i = 3; i < op_p->input->maxIndex(); ++i) args.state.push_back(getInTensor(i));
    for (const auto &[k, v] : op_p->attributes().values())
      if (auto *iv = std::get_if<Attributes::Int>(&v)) args.modes[k] = *iv;
    bool zero = op_p->attr<Attributes::Int>("zeroGradient", 0) != 0;
    VarUpdateFn fn = it->second;
    prog.add([args, fn, zero] {
      fn(args);
      if (zero) std::memset(args.g.raw(), 0, static_cast<size_t>(args.g.nbytes()));
    });
  }
};

// accum += g; with `runningMeanOver` = N, the k-th micro-batch of each cycle
// of N does accum += (g - accum) / k instead, so accum holds the mean.
class GradAccumulateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto acc = getOutTensor(0), g = getInTensor(1);
    const int64_t cycle = op_p->attr<Attributes::Int>("runningMeanOver", 0);
    auto calls = std::make_shared<int64_t>(0);
    dispatchFloat(acc.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const double k = cycle > 0 ? static_cast<double>((*calls)++ % cycle + 1) : 0.0;
        T *a = acc.data<T>();
        const T *x = g.data<T>();
        using C = compute_t<T>;
        const C inv = k > 0 ? C(1.0 / k) : C(0);
        popx::Opx::parallelFor(acc.nelms(), [&](int64_t b, int64_t e) {
          if (k > 0)
            for (int64_t i = b; i < e; ++i) a[i] = T(C(a[i]) + (C(x[i]) - C(a[i])) * inv);
          else
            for (int64_t i = b; i < e; ++i) a[i] = T(C(a[i]) + C(x[i]));
        });
      });
    });
  }
};

} // namespace

void registerVarUpdate(const std::string &algorithm, VarUpdateFn fn) { algorithms()[algorithm] = fn; }

static popx::OpxCreator<VarUpdateOpx> varUpdateOpxCreator(internalOp("OptimizerVarUpdate"));
static popx::OpxCreator<GradAccumulateOpx> gradAccumulateOpxCreator(internalOp("GradAccumulate"));
} // namespace popart::cpu
