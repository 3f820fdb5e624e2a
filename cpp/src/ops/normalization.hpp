// Normalisation ops named by their kernels: InstanceNormalization,
// LayerNormalization, MeanVarianceNormalization, LpNormalization.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// InstanceNormalization (ai.onnx 1, 6): per (n, c), y = scale_c (x - mean) / sqrt(var + eps) + B_c
/// over the spatial dims.
class InstanceNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
};

/// LayerNormalization (17): over dims [axis, rank), y = (x - mean) * invstd * Scale + B,
/// invstd = 1 / sqrt(var + eps); optional outputs Mean and InvStdDev (dims [axis, rank) = 1).
class LayerNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  int64_t axis() const { return axis_; }  // valid after setup(), non-negative

private:
  int64_t axis_ = 0;
};

/// MeanVarianceNormalization (9, 13): y = (x - mean) / (sqrt(E[(x - mean)^2]) + 1e-9)
/// over `axes` (default 0, 2, 3).
class MeanVarianceNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const std::vector<int64_t> &axes() const { return axes_; }  // sorted, non-negative

private:
  std::vector<int64_t> axes_;
};

/// LpNormalization (1): y = x / ||x||_p along `axis`, p in {1, 2}; 0 where the norm is 0.
class LpNormOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  int64_t axis() const { return axis_; }
  int64_t p() const { return p_; }

private:
  int64_t axis_ = 0, p_ = 2;
};

/// LRN (1, 13) over N, C, D1, ..: y = x / (bias + alpha / size * sum_{c' in window(c)} x[c']^2)^beta,
/// window(c) = [c - floor((size-1)/2), c + ceil((size-1)/2)] within [0, C).
class LRNOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
};

} // namespace popart
