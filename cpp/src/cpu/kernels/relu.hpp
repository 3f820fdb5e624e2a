// Relu over a buffer, shared by the Relu kernel and the kernels that apply a fused Relu themselves (MaxPool
// with a folded Relu, Gemm's activation).
#pragma once
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <cstdint>

namespace popart::cpu {

/// y[i] = max(x[i], 0) for i in [0, n), on the Opx threads; NaN passes through as in numpy. x may be y.
template <class T> void relu(const T *x, T *y, int64_t n) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const compute_t<T> v = x[i];
      y[i] = static_cast<T>(v < compute_t<T>(0) ? compute_t<T>(0) : v);
    }
  });
}

} // namespace popart::cpu
