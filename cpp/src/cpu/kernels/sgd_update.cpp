// SGD update, hyper = [gradScale, lr, wd, mm, dm, vs]:
//   g~ = g*gradScale + wd*w;  v' = v*mm + (1-dm)*g~*vs  (v stored scaled by vs)
//   w' = w - lr*(nesterov ? g~ + mm*v'/vs : v'/vs);  without momentum w' = w - lr*(1-dm)*g~.
#include "varupdate_util.hpp"
#include "vmath.hpp"

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

/// The update of float w, g (and v) in one pass, compiled per vector unit: ~5 memory streams at the
/// machine's bandwidth (the chunked path converts through buffers for mixed types).
struct SgdF32 {
  float gs, lr, wd, mm, dm, vs;
};

POPART_SIMD_CLONES void sgdRowF32(float *__restrict w, const float *__restrict g, int64_t n, SgdF32 k) {
  const float step = k.lr * (1 - k.dm);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) w[i] -= step * (g[i] * k.gs + k.wd * w[i]);
}

template <bool Nesterov>
POPART_SIMD_CLONES void sgdMomentumRowF32(float *__restrict w, const float *__restrict g, float *__restrict v,
                                          int64_t n, SgdF32 k) {
  const float keep = 1 - k.dm;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {  // the chunked path's arithmetic, operation for operation
    float gt = g[i] * k.gs + k.wd * w[i];
    float vn = v[i] * k.mm + keep * gt * k.vs;
    v[i] = vn;
    w[i] -= k.lr * (Nesterov ? gt + k.mm * vn / k.vs : vn / k.vs);
  }
}

bool allFloat(const VarUpdateArgs &a, bool momentum) {
  return a.w.dtype() == DataType::FLOAT && a.g.dtype() == DataType::FLOAT &&
         (!momentum || a.state[0].dtype() == DataType::FLOAT);
}

void sgdUpdateF32(const VarUpdateArgs &a, bool momentum, bool nesterov) {
  const SgdF32 k{vu::gradFactor(a), a.hyper[1], a.hyper[2], a.hyper[3], a.hyper[4], a.hyper[5]};
  float *w = a.w.data<float>(), *v = momentum ? a.state[0].data<float>() : nullptr;
  const float *g = a.g.data<float>();
  popx::Opx::parallelFor(a.w.nelms(), [&](int64_t b, int64_t e) {
    if (!momentum) sgdRowF32(w + b, g + b, e - b, k);
    else if (nesterov) sgdMomentumRowF32<true>(w + b, g + b, v + b, e - b, k);
    else sgdMomentumRowF32<false>(w + b, g + b, v + b, e - b, k);
  }, kMemoryBoundGrain);
}

void sgdUpdate(const VarUpdateArgs &a) {
  bool momentum = a.modes.at("momentum") != 0, nesterov = a.modes.at("nesterov") != 0;
  if (allFloat(a, momentum) && a.w.data<float>() != a.g.data<float>()) return sgdUpdateF32(a, momentum, nesterov);
  vu::dispatchCompute(a.w.dtype(), [&](auto tag) { sgdChunks<decltype(tag)>(a); });
}

const bool sgdRegistered = (registerVarUpdate("SGD", sgdUpdate), true);

} // namespace
} // namespace popart::cpu
