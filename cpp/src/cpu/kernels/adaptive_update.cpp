// Adaptive update, hyper = [gradScale, lr, wd, alpha, mm, eps], state = v1[, v2][, v3]:
//   g~ = g*gradScale (+ wd*w, L2); AdaGrad v1' = v1 + g~^2, else v1' = a*v1 + (1-a)*g~^2;
//   u = g~/(sqrt(v1' [- v2'^2]) + eps) (TF: sqrt(... + eps)), AdaDelta u = g~*sqrt(v2+eps)/sqrt(v1'+eps)
//   with v2' = a*v2 + (1-a)*u^2; momentum v3' = mm*v3 + u, u = v3'; (+ wd*w, Decay); w' = w - lr*u.
#include "popart/adaptive.hpp"
#include "varupdate_util.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

template <class C> void adaptiveChunks(const VarUpdateArgs &a) {
  auto mode = static_cast<AdaptiveMode>(a.modes.at("mode"));
  bool l2 = a.modes.at("l2") != 0, momentum = a.modes.at("momentum") != 0, tf = a.modes.at("tf") != 0;
  bool adagrad = mode == AdaptiveMode::AdaGrad, centered = mode == AdaptiveMode::CenteredRMSProp,
       adadelta = mode == AdaptiveMode::AdaDelta;
  const C gs = vu::gradFactor(a), lr = a.hyper[1], wd = a.hyper[2], al = a.hyper[3], mm = a.hyper[4],
          eps = a.hyper[5];
  const popx::TensorView *s2 = centered || adadelta ? &a.state.at(1) : nullptr;
  const popx::TensorView *s3 = momentum ? &a.state.at(s2 ? 2 : 1) : nullptr;
  vu::forChunks(a.w.nelms(), [&](int64_t o, int64_t n) {
    C wb[vu::kChunk], gb[vu::kChunk], b1[vu::kChunk], b2[vu::kChunk], b3[vu::kChunk];
    C *w = vu::view(a.w, o, n, wb), *g = vu::view(a.g, o, n, gb), *v1 = vu::view(a.state[0], o, n, b1);
    C *v2 = s2 ? vu::view(*s2, o, n, b2) : b2, *v3 = s3 ? vu::view(*s3, o, n, b3) : b3;
    for (int64_t i = 0; i < n; ++i) {
      C gt = g[i] * gs + (l2 ? wd * w[i] : C(0));
      v1[i] = adagrad ? v1[i] + gt * gt : al * v1[i] + (1 - al) * gt * gt;
      C u;
      if (adadelta) {
        u = gt * std::sqrt(v2[i] + eps) / std::sqrt(v1[i] + eps);
        v2[i] = al * v2[i] + (1 - al) * u * u;
      } else {
        C ms = v1[i];
        if (centered) {
          v2[i] = al * v2[i] + (1 - al) * gt;
          ms -= v2[i] * v2[i];
        }
        u = gt / (tf ? std::sqrt(ms + eps) : std::sqrt(ms) + eps);
        if (momentum) u = v3[i] = mm * v3[i] + u;
      }
      w[i] -= lr * (l2 ? u : u + wd * w[i]);
    }
    vu::commit(a.w, o, n, w);
    vu::commit(a.state[0], o, n, v1);
    if (s2) vu::commit(*s2, o, n, v2);
    if (s3) vu::commit(*s3, o, n, v3);
  });
}

void adaptiveUpdate(const VarUpdateArgs &a) {
  vu::dispatchCompute(a.w.dtype(), [&](auto tag) { adaptiveChunks<decltype(tag)>(a); });
}

const bool adaptiveRegistered = (registerVarUpdate("Adaptive", adaptiveUpdate), true);

} // namespace
} // namespace popart::cpu
