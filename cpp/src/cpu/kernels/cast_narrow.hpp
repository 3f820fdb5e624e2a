// Casts to and from BFLOAT16 and the ONNX storage types (FLOAT8E4M3FN ... INT2,
// one element per byte), implemented in cast_narrow.cpp; and castValue, one
// element of a cast between PopART's computing types, shared with cast.cpp.
#pragma once
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <type_traits>

namespace popart::cpu {

/// (To) v through the source's compute type (float for float16); to BOOL is v != 0.
template <class To, class From> To castValue(From v) {
  using C = compute_t<From>;
  if constexpr (std::is_same_v<To, bool>) return C(v) != C(0);
  else if constexpr (std::is_same_v<To, float16_t>) return float16_t(static_cast<float>(C(v)));
  else return static_cast<To>(C(v));
}

/// True when `from` or `to` is BFLOAT16, FLOAT8_143/152 or a storage type: the casts castNarrow does.
bool isNarrowCast(DataType from, DataType to);

/// How FLOAT8E8M0 (a power of two, no sign) rounds a float's mantissa: Cast's
/// `round_mode` attribute (opset 24), "up" by default.
enum class PowerOfTwoRounding { Up, Down, Nearest };

/// Cast's attributes for the narrow types. `saturate` (opset 19): float8
/// targets clamp values beyond their range to their largest finite value
/// instead of giving inf or NaN.
struct NarrowCastMode {
  bool saturate = true;
  PowerOfTwoRounding rounding = PowerOfTwoRounding::Up;
  /// A power of two the decoded value is multiplied by (in float, so exactly) before it is encoded.
  float scale = 1.0f;
};

/// y = x cast to y's type, for isNarrowCast types.
void castNarrow(const popx::TensorView &x, const popx::TensorView &y, NarrowCastMode mode);

/// The bits of `v` as one element of any fixed-size type `t` (a fill value;
/// float8 saturates).
uint64_t fillBits(DataType t, double v);

} // namespace popart::cpu
