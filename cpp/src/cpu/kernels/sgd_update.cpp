// SGD update, hyper = [gradScale, lr, wd, mm, dm, vs]:
//   g~ = g*gradScale + wd*w;  v' = v*mm + (1-dm)*g~*vs  (v stored scaled by vs)
//   w' = w - lr*(nesterov ? g~ + mm*v'/vs : v'/vs);  without momentum w' = w - lr*(1-dm)*g~.
#include "dispatch.hpp"
#include "varupdate.hpp"

namespace popart::cpu {
namespace {

void sgdUpdate(const VarUpdateArgs &a) {
  dispatchFloat(a.w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    T *w = a.w.data<T>();
    const T *g = a.g.data<T>();
    const C gs = a.hyper[0], lr = a.hyper[1], wd = a.hyper[2], mm = a.hyper[3], dm = a.hyper[4], vs = a.hyper[5];
    bool momentum = a.modes.at("momentum") != 0, nesterov = a.modes.at("nesterov") != 0;
    T *v = momentum ? a.state.at(0).data<T>() : nullptr;
    popx::Opx::parallelFor(a.w.nelms(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        C wi = w[i];
        C gt = C(g[i]) * gs + wd * wi;
        if (!momentum) {
          w[i] = T(wi - lr * (1 - dm) * gt);
          continue;
        }
        C vn = C(v[i]) * mm + (1 - dm) * gt * vs;
        v[i] = T(vn);
        C step = nesterov ? gt + mm * vn / vs : vn / vs;
        w[i] = T(wi - lr * step);
      }
    });
  });
}

const bool registered = (registerVarUpdate("SGD", sgdUpdate), true);

} // namespace
} // namespace popart::cpu
