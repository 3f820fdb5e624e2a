// RandomNormal/RandomUniform(Like), named by their kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// RandomNormal, RandomUniform (ai.onnx 1: shape attribute) and RandomNormalLike,
/// RandomUniformLike (1: the input's shape; dtype defaults to the input's).
/// Never constant-folded: every run draws new values. With a `seed` attribute
/// the sequence of runs is reproducible; without it the session seed is used.
class RandomOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool requiresRandomSeed() const override { return true; }
  bool isNormal() const { return opid.type == "RandomNormal" || opid.type == "RandomNormalLike"; }
  /// Normal: mean and scale; uniform: low and high.
  double param0() const;
  double param1() const;
  bool hasSeed() const { return attributes().hasAttribute("seed"); }
  float seed() const { return attr<Attributes::Float>("seed", 0.0f); }
};

} // namespace popart
