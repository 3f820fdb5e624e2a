// Helpers of the integer kernels (MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv): 8-bit type
// dispatch, operands centred on their zero points as INT32, and requantisation with saturation.
#pragma once
#include "popart/error.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace popart::cpu {

/// f(Q{}) for the 8-bit integer types.
template <class F> void dispatchInt8(DataType t, F &&f) {
  if (t == DataType::INT8) return f(int8_t{});
  if (t == DataType::UINT8) return f(uint8_t{});
  throw error("type {} is not supported here (expected INT8 or UINT8)", toString(t));
}

/// out = x - zero point as int32, for `mats` [rows, cols] matrices; the zero point (absent: 0) is one value
/// or one per row (per column when `transpose`, which also stores each matrix transposed, [cols, rows]).
template <class Q>
void centreToInt32(const Q *x, const popx::TensorView &zero, int64_t mats, int64_t rows, int64_t cols, bool transpose,
                   int32_t *out) {
  const Q *z = zero.raw() ? zero.data<Q>() : nullptr;
  const bool single = !z || zero.nelms() == 1;
  popx::Opx::parallelFor(mats * rows, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t mat = t / rows, r = t % rows;
      for (int64_t c = 0; c < cols; ++c) {
        const int32_t zv = z ? static_cast<int32_t>(z[single ? 0 : (transpose ? c : r)]) : 0;
        const int32_t v = static_cast<int32_t>(x[t * cols + c]) - zv;
        if (transpose) out[(mat * cols + c) * rows + r] = v;
        else out[t * cols + c] = v;
      }
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)));
}

/// saturate(round_half_even(acc * multiplier) + zero) in Q.
template <class Q> Q requantise(int32_t acc, double multiplier, double zero) {
  const double v = std::nearbyint(static_cast<double>(acc) * multiplier) + zero;
  return static_cast<Q>(std::clamp(v, double(std::numeric_limits<Q>::lowest()), double(std::numeric_limits<Q>::max())));
}

} // namespace popart::cpu
