// Casts between BFLOAT16 / the ONNX storage types and every fixed-size type, by
// ONNX's rules (those of onnx's reference implementation, which uses ml_dtypes):
// - to a small float: the source's bits rounded to nearest even (subnormals too).
//   Beyond the range: inf, or NaN for formats without inf; float8 with saturate
//   and FLOAT4E2M1 always give the largest finite value. NaN keeps its sign,
//   except in the FNUZ formats (one NaN, 0x80, and no -0) and FLOAT4E2M1 (no
//   NaN: it gives a zero of the opposite sign, as ml_dtypes does).
// - to INT4/UINT4/INT2/UINT2: integers keep their low bits (two's complement
//   wrap); floats are truncated toward zero first (NaN, inf and values outside
//   int32 give 0).
// - to FLOAT8E8M0 (powers of two): see PowerOfTwo.
// - from them: the exact value as float (int32 for the integers), then the
//   plain cast. One type dispatch per tensor; the loops are table-free bit work.
#include "cast_narrow.hpp"
#include "vmath.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace popart::cpu {
namespace {

template <class U, class F> U bitsOf(F f) {
  U u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
template <class F, class U> F fromBits(U u) {
  F f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

constexpr float pow2(int n) {
  float r = 1.0f;
  for (; n < 0; ++n) r *= 0.5f;
  for (; n > 0; --n) r *= 2.0f;
  return r;
}

// How a small float format spells its special values.
enum class Specials {
  Ieee,  // all-ones exponent: inf (mantissa 0) or NaN (BFLOAT16, E5M2)
  Fn,    // no inf; S.1111.111 is NaN (E4M3FN)
  Fnuz,  // no inf, no -0; 0x80 is the only NaN (E4M3FNUZ, E5M2FNUZ)
  None   // neither inf nor NaN (E2M1)
};

/// Sign bit, E exponent bits (bias Bias), M mantissa bits, in the low bits of
/// Stored. Float8 formats honour Cast's `saturate`.
template <class StoredT, int E, int M, int Bias, Specials S, bool Float8> struct SmallFloat {
  using Stored = StoredT;
  static constexpr bool kNarrow = true;
  static constexpr uint32_t kSign = 1u << (E + M);
  static constexpr uint32_t kManMask = (1u << M) - 1;
  static constexpr uint32_t kExpMax = (1u << E) - 1;
  static constexpr uint32_t kAllOnes = (kExpMax << M) | kManMask;
  static constexpr uint32_t kMaxFinite =
      S == Specials::Ieee ? (kExpMax << M) - 1 : (S == Specials::Fn ? kAllOnes - 1 : kAllOnes);
  static constexpr float kSubnormalUlp = pow2(1 - Bias - M);

  static Stored nan(bool neg) {
    const uint32_t sign = neg ? kSign : 0;
    if constexpr (S == Specials::Ieee) return Stored(sign | (kExpMax << M) | (1u << (M - 1)));
    else if constexpr (S == Specials::Fn) return Stored(sign | kAllOnes);
    else if constexpr (S == Specials::Fnuz) return Stored(kSign);
    else return Stored(sign ^ kSign);
  }

  /// The magnitude of a finite |x| (bits `a` of a float or double) rounded to
  /// nearest even; above kMaxFinite when out of range.
  template <class F, class U> static uint64_t roundMagnitude(U a) {
    constexpr int kSrcM = std::numeric_limits<F>::digits - 1;
    constexpr int kSrcBias = std::numeric_limits<F>::max_exponent - 1;
    const int srcExp = static_cast<int>(a >> kSrcM);  // biased; 0 for subnormals
    const int e = std::max(srcExp, 1) - kSrcBias;
    const U sig = (a & ((U(1) << kSrcM) - 1)) | (srcExp ? U(1) << kSrcM : U(0));
    // Source bits below the target's ulp at exponent e (more below its normal range).
    const int drop = kSrcM - M + std::max(0, 1 - Bias - e);
    if (drop > kSrcM + 1) return 0;
    const U r = (sig + (U(1) << (drop - 1)) - 1 + ((sig >> drop) & 1)) >> drop;
    // r holds the implicit bit for normal results, so a carry moves into the exponent.
    return (static_cast<uint64_t>(std::max(e + Bias, 1) - 1) << M) + r;
  }

  template <class V> static Stored encode(V v, NarrowCastMode mode) {
    const bool saturate = mode.saturate;
    if constexpr (!std::is_floating_point_v<V>) {
      return encode(static_cast<float>(v), mode);
    } else {
      using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
      constexpr U kTop = U(1) << (sizeof(V) * 8 - 1);
      const U u = bitsOf<U>(v), a = u & ~kTop, inf = bitsOf<U>(std::numeric_limits<V>::infinity());
      const bool neg = (u & kTop) != 0;
      if (a > inf) return nan(neg);
      uint64_t mag = a == inf ? uint64_t(kMaxFinite) + 1 : roundMagnitude<V>(a);
      if (mag > kMaxFinite) {
        if (S == Specials::None || (Float8 && saturate)) mag = kMaxFinite;
        else if (S == Specials::Ieee) mag = kExpMax << M;
        else return nan(neg);
      }
      if (S == Specials::Fnuz && mag == 0) return 0;
      return Stored((neg ? kSign : 0) | mag);
    }
  }

  static float decode(Stored b) {
    if constexpr (E == 8) return fromBits<float>(uint32_t(b) << 16);  // BFLOAT16: float's top half
    const uint32_t v = b & (2 * kSign - 1), mag = v & ~kSign, exp = mag >> M, man = mag & kManMask;
    float f;
    if (S == Specials::Fn && mag == kAllOnes) f = std::numeric_limits<float>::quiet_NaN();
    else if (S == Specials::Fnuz && v == kSign) f = std::numeric_limits<float>::quiet_NaN();
    else if (S == Specials::Ieee && exp == kExpMax) f = fromBits<float>(0x7f800000u | (man << (23 - M)));
    else if (exp == 0) f = static_cast<float>(man) * kSubnormalUlp;
    else f = fromBits<float>(((exp + 127 - Bias) << 23) | (man << (23 - M)));
    return (v & kSign) ? -f : f;
  }
};

/// Bits-wide two's complement (Signed) or unsigned integers in the low bits of a byte.
template <int Bits, bool Signed> struct SmallInt {
  using Stored = uint8_t;
  static constexpr bool kNarrow = true;
  static constexpr uint32_t kMask = (1u << Bits) - 1;

  template <class V> static uint8_t encode(V v, NarrowCastMode) {
    if constexpr (std::is_floating_point_v<V>) {
      const V t = std::trunc(v);  // NaN fails both comparisons
      return t >= V(-2147483648.0) && t < V(2147483648.0) ? uint8_t(static_cast<int32_t>(t) & kMask) : 0;
    } else {
      return uint8_t(static_cast<uint64_t>(v) & kMask);
    }
  }
  static int32_t decode(uint8_t b) {
    if constexpr (Signed) return static_cast<int8_t>(uint8_t(b << (8 - Bits))) >> (8 - Bits);
    else return b & kMask;
  }
};

/// FLOAT8E8M0: 2^(b - 127) for b < 255, NaN for 255; no sign, no zero. Values
/// go through float (as onnx's reference does) and keep only their exponent,
/// the mantissa rounding it per PowerOfTwoRounding; the sign is dropped.
struct PowerOfTwo {
  using Stored = uint8_t;
  static constexpr bool kNarrow = true;

  template <class V> static uint8_t encode(V v, NarrowCastMode mode) {
    const uint32_t u = bitsOf<uint32_t>(static_cast<float>(v));
    uint32_t e = (u >> 23) & 0xff;
    if (e == 0xff) return 0xff;  // inf and NaN
    bool up = false;
    switch (mode.rounding) {
    case PowerOfTwoRounding::Up: up = (u & 0x7fffff) != 0; break;
    case PowerOfTwoRounding::Down: break;
    case PowerOfTwoRounding::Nearest:  // guard bit, then ties go up unless the result would be 2^-127
      up = (u & 0x400000) && ((u & 0x3fffff) || e > 0);
      break;
    }
    if (up && !(mode.saturate && e == 0xfe)) ++e;  // 0xfe + 1 without saturate: NaN
    return uint8_t(e);
  }
  static float decode(uint8_t b) {
    if (b == 0xff) return std::numeric_limits<float>::quiet_NaN();
    return b ? fromBits<float>(uint32_t(b) << 23) : fromBits<float>(0x400000u);  // 2^-127 is a float subnormal
  }
};

/// PopART's computing types.
template <class T> struct Plain {
  using Stored = T;
  static constexpr bool kNarrow = false;
  template <class V> static T encode(V v, NarrowCastMode) { return castValue<T>(v); }
  static compute_t<T> decode(T v) { return compute_t<T>(v); }
};

using Bfloat16 = SmallFloat<uint16_t, 8, 7, 127, Specials::Ieee, false>;
using E4M3FN = SmallFloat<uint8_t, 4, 3, 7, Specials::Fn, true>;
using E4M3FNUZ = SmallFloat<uint8_t, 4, 3, 8, Specials::Fnuz, true>;
using E5M2 = SmallFloat<uint8_t, 5, 2, 15, Specials::Ieee, true>;
using E5M2FNUZ = SmallFloat<uint8_t, 5, 2, 16, Specials::Fnuz, true>;
using E2M1 = SmallFloat<uint8_t, 2, 1, 1, Specials::None, false>;

template <class F> void dispatchCodec(DataType t, F &&f) {
  switch (t) {
  case DataType::BFLOAT16: return f(Bfloat16{});
  case DataType::FLOAT8E4M3FN: return f(E4M3FN{});
  case DataType::FLOAT8E4M3FNUZ: return f(E4M3FNUZ{});
  case DataType::FLOAT8E5M2: return f(E5M2{});
  case DataType::FLOAT8E5M2FNUZ: return f(E5M2FNUZ{});
  case DataType::FLOAT8_143: return f(E4M3FNUZ{});  // Graphcore's formats: the FNUZ encodings
  case DataType::FLOAT8_152: return f(E5M2FNUZ{});
  case DataType::FLOAT4E2M1: return f(E2M1{});
  case DataType::INT4: return f(SmallInt<4, true>{});
  case DataType::UINT4: return f(SmallInt<4, false>{});
  case DataType::INT2: return f(SmallInt<2, true>{});
  case DataType::FLOAT8E8M0: return f(PowerOfTwo{});
  case DataType::UINT2: return f(SmallInt<2, false>{});
  default: return dispatchAll(t, [&](auto tag) { f(Plain<decltype(tag)>{}); });
  }
}

} // namespace

bool isNarrowCast(DataType from, DataType to) {
  auto narrow = [](DataType t) {
    return t == DataType::BFLOAT16 || t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152 || isStorageType(t);
  };
  return narrow(from) || narrow(to);
}

void castNarrow(const popx::TensorView &xv, const popx::TensorView &yv, NarrowCastMode mode) {
  const int64_t n = xv.nelms();
  dispatchCodec(xv.dtype(), [&](auto from) {
    dispatchCodec(yv.dtype(), [&](auto to) {
      using From = decltype(from);
      using To = decltype(to);
      if constexpr (!From::kNarrow && !To::kNarrow) {
        throw internal_error("castNarrow called for {} to {}", toString(xv.dtype()), toString(yv.dtype()));
      } else {
        const auto *x = static_cast<const typename From::Stored *>(xv.raw());
        auto *y = static_cast<typename To::Stored *>(yv.raw());
        const float scale = mode.scale;
        popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
          if (scale == 1.0f)
            for (int64_t i = b; i < e; ++i) y[i] = To::encode(From::decode(x[i]), mode);
          else
            for (int64_t i = b; i < e; ++i) y[i] = To::encode(From::decode(x[i]) * scale, mode);
        }, kMemoryBoundGrain);
      }
    });
  });
}

uint64_t fillBits(DataType t, double v) {
  uint64_t bits = 0;
  dispatchCodec(t, [&](auto to) {
    const auto c = decltype(to)::encode(v, NarrowCastMode{});
    std::memcpy(&bits, &c, sizeof c);
  });
  return bits;
}

} // namespace popart::cpu
