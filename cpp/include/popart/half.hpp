// IEEE binary16 storage type with float conversions (round to nearest even).
// Kernels compute FLOAT16 in float and store half.
#pragma once
#include <cstdint>
#include <cmath>
#include <cstring>

namespace popart {

struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  float16_t(float f) : bits(fromFloat(f)) {}
  operator float() const { return toFloat(bits); }

  static uint16_t fromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u)  // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (absx < 0x38800000u) {  // subnormal half (or zero)
      float a;
      std::memcpy(&a, &absx, 4);
      return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
    }
    uint32_t mant = absx & 0x7fffffu;
    uint32_t exp = (absx >> 23) - 112;
    uint32_t h = (exp << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  static float toFloat(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x;
    if (exp == 0x1f) {
      x = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
      float f = static_cast<float>(mant) * (1.0f / 16777216.0f);
      std::memcpy(&x, &f, 4);
      x |= sign;
    } else {
      x = sign | ((exp + 112) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

} // namespace popart
