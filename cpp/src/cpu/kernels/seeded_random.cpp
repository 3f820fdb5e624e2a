// Seeded random kernels (ops/seeded_random.cpp): element i of a draw is a function of the seed value
// and i only (counter-based, random_bits.hpp), so it does not depend on threads, runs or graphs.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include "random_bits.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

uint64_t seedKey(KernelContext &ctx) {
  auto s = ctx.in<uint32_t>(0);
  return randomMix64((static_cast<uint64_t>(s[0]) << 32 | s[1]) ^ 0x5eedull);
}

void uniformSeeded(KernelContext &ctx) {
  const uint64_t key = seedKey(ctx);
  const double lo = ctx.op().attr<Attributes::Float>("low", 0.0f), hi = ctx.op().attr<Attributes::Float>("high", 1.0f);
  dispatchFloat(ctx.outInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto y = ctx.out<T>(0);
    popx::Opx::parallelFor(y.size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<T>(lo + (hi - lo) * randomUniform01(key, i));
    });
  });
}

void normalSeeded(KernelContext &ctx) {  // Box-Muller on pairs (2k, 2k + 1)
  const uint64_t key = seedKey(ctx);
  const double mean = ctx.op().attr<Attributes::Float>("mean", 0.0f);
  const double scale = ctx.op().attr<Attributes::Float>("scale", 1.0f);
  dispatchFloat(ctx.outInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto y = ctx.out<T>(0);
    const int64_t n = y.size();
    popx::Opx::parallelFor((n + 1) / 2, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        const double r = std::sqrt(-2.0 * std::log1p(-randomUniform01(key, 2 * k)));
        const double a = 6.283185307179586 * randomUniform01(key, 2 * k + 1);
        y[2 * k] = static_cast<T>(mean + scale * r * std::cos(a));
        if (2 * k + 1 < n) y[2 * k + 1] = static_cast<T>(mean + scale * r * std::sin(a));
      }
    });
  });
}

void modifySeed(KernelContext &ctx) {
  auto s = ctx.in<uint32_t>(0);
  auto y = ctx.out<uint32_t>(0);
  const uint64_t m = static_cast<uint64_t>(ctx.op().attr<Attributes::Int>("modifier"));
  const uint64_t z = randomMix64(randomMix64(static_cast<uint64_t>(s[0]) << 32 | s[1]) + randomMix64(m));
  y[0] = static_cast<uint32_t>(z >> 32);
  y[1] = static_cast<uint32_t>(z);
}

} // namespace
POPART_REGISTER_KERNEL(graphcoreOp("RandomUniformSeeded"), uniformSeeded);
POPART_REGISTER_KERNEL(graphcoreOp("RandomNormalSeeded"), normalSeeded);
POPART_REGISTER_KERNEL(graphcoreOp("ModifyRandomSeed"), modifySeed);
} // namespace popart::cpu
