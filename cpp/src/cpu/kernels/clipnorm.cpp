// ClipNormScale: scale = maxNorm / max(gradScale * sqrt(sum of squared gradients), maxNorm),
// the squares summed in double over fixed blocks (deterministic).
#include "popart/cpu/kernel.hpp"
#include "varupdate_util.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

void clipNormScale(KernelContext &ctx) {
  double sq = 0;
  for (int i = 1; i < ctx.numInputs(); ++i) {
    dispatchFloat(ctx.inInfo(i).dataType(), [&](auto tag) {
      using T = decltype(tag);
      auto g = ctx.in<T>(i);
      sq += vu::blockSums<1>(static_cast<int64_t>(g.size()), [&](int64_t b, int64_t n, double *s) {
        for (int64_t j = b; j < b + n; ++j) s[0] += double(compute_t<T>(g[j])) * double(compute_t<T>(g[j]));
      })[0];
    });
  }
  double norm = double(ctx.in<float>(0)[0]) * std::sqrt(sq);
  double maxNorm = ctx.op().attr<Attributes::Float>("maxNorm", 1.0f);
  ctx.out<float>(0)[0] = static_cast<float>(maxNorm / std::max(norm, maxNorm));
}

} // namespace
POPART_REGISTER_KERNEL(internalOp("ClipNormScale"), clipNormScale);
} // namespace popart::cpu
