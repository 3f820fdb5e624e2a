// Adam family update, hyper = [gradScale, lr, wd, b1, b2, eps, mwn, ls], state = m, v[, t]:
//   g~ = g*gradScale (+ wd*w, L2); m' = b1*m + (1-b1)*g~; v' = b2*v + (1-b2)*g~^2 (AdaMax: max(b2*v, |g~|))
//   u = m'/c1 / (sqrt(v'/c2) + eps) (+ wd*w, Decay), AdaMax included, as the spec's formula has it
//   (torch's Adamax divides by v' + eps instead); Lamb scales lr by min(|w|,mwn)/|u|.
#include "popart/adam.hpp"
#include "varupdate_util.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

template <class C> struct AdamStep {
  C gs, lr, wd, b1, b2, eps;
  C s1 = 1, s2 = 1;  // state scales (loss scaling with scaled optimizer state)
  C c1 = 1, c2 = 1;  // bias corrections 1 - b^t
  bool l2 = false, adamax = false;

  // m and v from the raw gradient, in place (stored scaled by s1, s2).
  void moments(C w, C g, C &m, C &v) const {
    C gt = g * gs + (l2 ? wd * w : C(0));
    m = b1 * m + (1 - b1) * gt * s1;
    v = adamax ? std::max(b2 * v, std::abs(gt) * s2) : b2 * v + (1 - b2) * gt * gt * s2;
  }
  C update(C w, C m, C v) const {
    C mt = m / (s1 * c1);
    C u = mt / (std::sqrt(v / (s2 * c2)) + eps);
    return l2 ? u : u + wd * w;
  }
};

template <class C> AdamStep<C> adamStep(const VarUpdateArgs &a, AdamMode mode) {
  const float *h = a.hyper;
  AdamStep<C> st{vu::gradFactor(a), h[1], h[2], h[3], h[4], h[5]};
  st.l2 = a.modes.at("l2") != 0;
  st.adamax = mode == AdamMode::AdaMax;
  if (a.modes.at("scaled") != 0) {
    st.s1 = h[7];
    st.s2 = st.adamax ? C(h[7]) : C(h[7]) * C(h[7]);
  }
  if (mode == AdamMode::Adam || mode == AdamMode::Lamb || mode == AdamMode::AdaMax) {
    float &t = *a.state.at(2).data<float>();
    t += 1;
    st.c1 = C(1 - std::pow(double(st.b1), double(t)));
    st.c2 = C(1 - std::pow(double(st.b2), double(t)));
  }
  return st;
}

// Adam/AdaMax: one pass. Lamb: the first pass updates m, v and sums |w|^2 and
// |u|^2; the second recomputes u from the stored state and applies the trust
// ratio min(|w|, mwn)/|u| (1 when either norm is 0).
template <class C> void adamChunks(const VarUpdateArgs &a) {
  auto mode = static_cast<AdamMode>(a.modes.at("mode"));
  bool lamb = mode == AdamMode::Lamb || mode == AdamMode::LambNoBias;
  const AdamStep<C> st = adamStep<C>(a, mode);
  C lr = st.lr;
  const int64_t n = a.w.nelms();
  auto pass = [&](int64_t o, int64_t k, bool apply, double *sums) {
    C wb[vu::kChunk], gb[vu::kChunk], mb[vu::kChunk], vb[vu::kChunk], wn[vu::kChunk];
    const C *w = vu::view(a.w, o, k, wb);
    C *m = vu::view(a.state[0], o, k, mb), *v = vu::view(a.state[1], o, k, vb);
    if (!apply || !lamb) {
      const C *g = vu::view(a.g, o, k, gb);
      for (int64_t i = 0; i < k; ++i) st.moments(w[i], g[i], m[i], v[i]);
      vu::commit(a.state[0], o, k, m);  // the update sees the state as stored (its type's rounding)
      vu::commit(a.state[1], o, k, v);
    }
    for (int64_t i = 0; i < k; ++i) {
      C u = st.update(w[i], m[i], v[i]);
      if (sums) sums[0] += double(w[i]) * double(w[i]), sums[1] += double(u) * double(u);
      wn[i] = w[i] - lr * u;
    }
    if (apply) vu::store(a.w, o, k, wn);
  };
  if (!lamb) {
    vu::forChunks(n, [&](int64_t o, int64_t k) { pass(o, k, true, nullptr); });
    return;
  }
  auto sums = vu::blockSums<2>(n, [&](int64_t b, int64_t len, double *s) {
    for (int64_t o = b; o < b + len; o += vu::kChunk) pass(o, std::min(vu::kChunk, b + len - o), false, s);
  });
  double r1 = std::min(std::sqrt(sums[0]), double(a.hyper[6])), r2 = std::sqrt(sums[1]);
  lr = st.lr * C(r1 > 0 && r2 > 0 ? r1 / r2 : 1.0);  // trust ratio 1 when a norm is 0
  vu::forChunks(n, [&](int64_t o, int64_t k) { pass(o, k, true, nullptr); });
}

void adamUpdate(const VarUpdateArgs &a) {
  vu::dispatchCompute(a.w.dtype(), [&](auto tag) { adamChunks<decltype(tag)>(a); });
}

const bool adamRegistered = (registerVarUpdate("Adam", adamUpdate), true);

} // namespace
} // namespace popart::cpu
