// LossScaleUpdate: the [below, above] counts of all statistics inputs summed in
// double; the factor halved when the upper proportion exceeds the threshold,
// else doubled (computed in float, stored in the output's type).
#include "dispatch.hpp"
#include "ops/loss_scale_update.hpp"
#include "popart/cpu/kernel.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

double statisticsCount(const popx::TensorView &v, int64_t j) {
  return dispatchNumeric(v.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(static_cast<compute_t<T>>(v.data<T>()[j]));
  });
}

void lossScaleUpdate(KernelContext &ctx) {
  const auto &op = ctx.op<LossScaleUpdateOp>();
  double below = 0, above = 0;
  for (InIndex i = 1; i < ctx.numInputs(); ++i) {
    const double lo = statisticsCount(ctx.inView(i), 0), hi = statisticsCount(ctx.inView(i), 1);
    if (!std::isfinite(lo) || !std::isfinite(hi) || lo < 0 || hi < 0)
      throw error("gradient statistics input {} ('{}') holds [{}, {}]: counts must be finite and >= 0", i,
                  op.inId(i), lo, hi);
    below += lo;
    above += hi;
  }
  const double total = below + above;
  const bool tooManyLarge = total > 0 && above / total > op.thresholdUpperCountProportion();
  const float f = dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    return static_cast<float>(static_cast<compute_t<decltype(tag)>>(ctx.in<decltype(tag)>(0)[0]));
  });
  const float next = tooManyLarge ? f / 2 : f * 2;
  dispatchFloat(ctx.outInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    ctx.out<T>(0)[0] = static_cast<T>(next);
  });
}

} // namespace
POPART_REGISTER_KERNEL(graphcoreOp("LossScaleUpdate"), lossScaleUpdate);
} // namespace popart::cpu
