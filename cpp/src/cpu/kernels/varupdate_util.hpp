// Helpers shared by the optimizer update kernels. Weight, gradient and each
// state tensor may have their own float type, so an update is written once
// over chunks converted to the compute type C (double for double weights,
// float otherwise).
#pragma once
#include "dispatch.hpp"
#include "varupdate.hpp"
#include <algorithm>
#include <array>
#include <vector>

namespace popart::cpu::vu {

constexpr int64_t kChunk = 256;

template <class C> void load(const popx::TensorView &t, int64_t off, int64_t n, C *dst) {
  dispatchFloat(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *src = static_cast<const T *>(t.raw()) + off;
    for (int64_t i = 0; i < n; ++i) dst[i] = C(compute_t<T>(src[i]));
  });
}

template <class C> void store(const popx::TensorView &t, int64_t off, int64_t n, const C *src) {
  dispatchFloat(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *dst = static_cast<T *>(t.raw()) + off;
    for (int64_t i = 0; i < n; ++i) dst[i] = T(compute_t<T>(src[i]));
  });
}

/// Elements [off, off+n) of t as C: the tensor's own memory when its type is
/// C (the common case, no copy), else a converted copy in buf.
template <class C> C *view(const popx::TensorView &t, int64_t off, int64_t n, C *buf) {
  if (t.dtype() == getDataType<C>()) return static_cast<C *>(t.raw()) + off;
  load(t, off, n, buf);
  return buf;
}

/// Writes a view back when it was a copy, and rounds the copy to the tensor's
/// type so later reads of it see what is stored.
template <class C> void commit(const popx::TensorView &t, int64_t off, int64_t n, C *p) {
  if (p == static_cast<C *>(t.raw()) + off) return;
  store(t, off, n, p);
  load(t, off, n, p);
}

/// f(C{}) with C = double for DOUBLE weights, float otherwise.
template <class F> void dispatchCompute(DataType weightType, F &&f) {
  if (weightType == DataType::DOUBLE) f(double{});
  else f(float{});
}

/// Runs f(offset, count) over chunks of at most kChunk elements, in parallel.
template <class F> void forChunks(int64_t n, F &&f) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; o += kChunk) f(o, std::min(kChunk, e - o));
  });
}

/// Sums f(offset, count, sums) (adding N values to sums) over fixed blocks in a
/// fixed order, so the result does not depend on the thread count.
template <int N, class F> std::array<double, N> blockSums(int64_t n, F &&f) {
  constexpr int64_t block = 1 << 14;
  int64_t blocks = (n + block - 1) / block;
  std::vector<double> partial(static_cast<size_t>(blocks * N), 0.0);
  popx::Opx::parallelFor(
      blocks,
      [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) f(k * block, std::min(block, n - k * block), &partial[k * N]);
      },
      1);
  std::array<double, N> s{};
  for (int64_t k = 0; k < blocks; ++k)
    for (int j = 0; j < N; ++j) s[j] += partial[k * N + j];
  return s;
}

/// Factor applied to the raw gradient: gradScale (1/lossScaling, 1/accumulation
/// for Mean) times the clip-norm scale when the weight is in a clip group (the
/// scale is then the op's last input).
inline float gradFactor(const VarUpdateArgs &a) {
  auto it = a.modes.find("clipNorm");
  float s = a.hyper[0];
  if (it != a.modes.end() && it->second) s *= *a.state.back().data<float>();
  return s;
}

} // namespace popart::cpu::vu
