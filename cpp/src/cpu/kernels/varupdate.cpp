// OptimizerVarUpdate, GradAccumulate and GradSum kernels. The var update
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

void gradAccumulate(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto acc = ctx.out<T>(0);
    auto g = ctx.in<T>(1);
    popx::Opx::parallelFor(acc.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) acc[i] = T(compute_t<T>(acc[i]) + compute_t<T>(g[i]));
    });
  });
}

void gradSum(KernelContext &ctx) {
  dispatchFloat(ctx.outInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto out = ctx.out<T>(0);
    int n = ctx.numInputs();
    popx::Opx::parallelFor(out.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        compute_t<T> s = 0;
        for (int k = 0; k < n; ++k) s += compute_t<T>(ctx.in<T>(k)[i]);
        out[i] = T(s);
      }
    });
  });
}

} // namespace

void registerVarUpdate(const std::string &algorithm, VarUpdateFn fn) { algorithms()[algorithm] = fn; }

static popx::OpxCreator<VarUpdateOpx> varUpdateOpxCreator(internalOp("OptimizerVarUpdate"));
POPART_REGISTER_KERNEL(internalOp("GradAccumulate"), gradAccumulate);
POPART_REGISTER_KERNEL(internalOp("GradSum"), gradSum);
} // namespace popart::cpu
