// GatherOp and GatherGradOp, named by their kernels (which read the resolved axis).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Gather (ai.onnx 1, 11, 13): y[a.., j.., b..] = x[a.., indices[j..], b..]
/// with the indices replacing `axis`; negative indices count from the end.
class GatherOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// The gathered axis in [0, rank); valid after setup().
  int64_t axis() const { return axis_; }

private:
  int64_t axis_ = 0;
};

/// dx = zeros of x's shape, then dx[a.., indices[j..], b..] += dy[a.., j.., b..]
/// (repeated indices accumulate). Inputs: dY (0), indices (1); indices get no gradient.
class GatherGradOp final : public ShapeGradOp {
public:
  explicit GatherGradOp(const GatherOp &fwd)
      : ShapeGradOp(internalOp("GatherGrad"), fwd, 0, {{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}}),
        axis_(fwd.axis()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  int64_t axis() const { return axis_; }

private:
  int64_t axis_;
};

} // namespace popart
