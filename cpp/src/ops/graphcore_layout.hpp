// Reverse, Subsample and Slice-1 (ai.graphcore) and their gradients, named by their kernel:
// y[i] = x[b + i * s] per dimension, with (b, s) = (d - 1, -1) for reversed
// dimensions, (0, stride) for subsampled ones and (start, 1) for sliced ones.
#pragma once
#include "shape_grad.hpp"

namespace popart {

class StridedViewOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Per-dimension start and step into x; valid after setup().
  const std::vector<int64_t> &begins() const { return begins_; }
  const std::vector<int64_t> &steps() const { return steps_; }

private:
  std::vector<int64_t> begins_, steps_;
};

/// dx = zeros, dx[b + i * s] = dy[i] (for Reverse every element is written).
class StridedViewGradOp final : public ShapeGradOp {
public:
  explicit StridedViewGradOp(const StridedViewOp &fwd)
      : ShapeGradOp(internalOp(fwd.opid.type == "Slice" ? "GraphcoreSliceGrad" : fwd.opid.type + "Grad"), fwd),
        begins_(fwd.begins()), steps_(fwd.steps()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const std::vector<int64_t> &begins() const { return begins_; }
  const std::vector<int64_t> &steps() const { return steps_; }

private:
  std::vector<int64_t> begins_, steps_;
};

} // namespace popart
