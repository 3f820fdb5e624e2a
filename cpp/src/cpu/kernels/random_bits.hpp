// Counter-based random numbers shared by the random kernels (RandomNormal/
// Uniform, Dropout): element i of a draw is a pure function of (key, i), so
// results do not depend on how threads split the work, and a gradient kernel
// can regenerate its forward's mask instead of storing it.
#pragma once
#include "popart/ir.hpp"
#include <cstdint>
#include <functional>
#include <string>

namespace popart::cpu {

inline uint64_t randomMix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Uniform in [0, 1) for element i of the stream `key` (53 random bits).
inline double randomUniform01(uint64_t key, uint64_t i) {
  return static_cast<double>(randomMix64(key + randomMix64(i)) >> 11) * 0x1.0p-53;
}

/// A stable per-op key from a name (the forward op's output id).
inline uint64_t randomOpKey(const std::string &name) { return randomMix64(std::hash<std::string>{}(name)); }

/// The draws of one op: a new key for every call, derived from the seed, the
/// op and the micro-batch counter; calls within one micro-batch (an op inside
/// a Loop body) are numbered so each gets fresh values.
class RandomStream {
public:
  RandomStream(const Ir::RandomState &state, uint64_t opKey) : state_(&state), opKey_(opKey) {}
  /// `fixedSeed`: the op's own seed attribute, if it has one.
  uint64_t nextKey(const uint64_t *fixedSeed = nullptr) {
    if (state_->counter != counter_) counter_ = state_->counter, calls_ = 0;
    const uint64_t seed = fixedSeed ? *fixedSeed : state_->seed;
    return randomMix64(randomMix64(seed) ^ opKey_) + randomMix64(counter_ * 0x10001ull + calls_++ + 1);
  }

private:
  const Ir::RandomState *state_;
  uint64_t opKey_;
  uint64_t counter_ = ~0ull, calls_ = 0;
};

} // namespace popart::cpu
