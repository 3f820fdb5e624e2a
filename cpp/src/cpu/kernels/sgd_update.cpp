// SGD update, hyper = [gradScale, lr, wd, mm, dm, vs]:
//   g~ = g*gradScale + wd*w;  v' = v*mm + (1-dm)*g~*vs  (v stored scaled by vs)
//   w' = w - lr*(nesterov ? g~ + mm*v'/vs : v'/vs);  without momentum w' = w - lr*(1-dm)*g~.
#include "varupdate_util.hpp"

namespace popart::cpu {
namespace {

template <class C> void sgdChunks(const VarUpdateArgs &a) {
  const C gs = vu::gradFactor(a), lr = a.hyper[1], wd = a.hyper[2], mm = a.hyper[3], dm = a.hyper[4],
          vs = a.hyper[5];
  bool momentum = a.modes.at("momentum") != 0, nesterov = a.modes.at("nesterov") != 0;
  vu::forChunks(a.w.nelms(), [&](int64_t o, int64_t n) {
    C wb[vu::kChunk], gb[vu::kChunk], vb[vu::kChunk];
    C *w = vu::view(a.w, o, n, wb), *g = vu::view(a.g, o, n, gb);
    if (!momentum) {
      for (int64_t i = 0; i < n; ++i) w[i] -= lr * (1 - dm) * (g[i] * gs + wd * w[i]);
    } else {
      C *v = vu::view(a.state[0], o, n, vb);
      for (int64_t i = 0; i < n; ++i) {
        C gt = g[i] * gs + wd * w[i];
        C vn = v[i] * mm + (1 - dm) * gt * vs;
        v[i] = vn;
        w[i] -= lr * (nesterov ? gt + mm * vn / vs : vn / vs);
      }
      vu::commit(a.state[0], o, n, v);
    }
    vu::commit(a.w, o, n, w);
  });
}

void sgdUpdate(const VarUpdateArgs &a) {
  vu::dispatchCompute(a.w.dtype(), [&](auto tag) { sgdChunks<decltype(tag)>(a); });
}

const bool sgdRegistered = (registerVarUpdate("SGD", sgdUpdate), true);

} // namespace
} // namespace popart::cpu
