// ai.graphcore Sort and ReduceMedian and their gradients, named by their kernels.
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Sort along one axis: values and INT32 indices; axis and order valid after setup().
class SortOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t axis() const { return axis_; }

private:
  int64_t axis_ = 0;
};

/// Median over `axes` (lower median): values and INT32 indices into the reduced
/// elements taken in row-major order; the reduced axes valid after setup().
class ReduceMedianOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  const std::vector<int64_t> &axes() const { return axes_; }

private:
  std::vector<int64_t> axes_;
};

/// dx = zeros, then dY's entries written to the positions its indices name: the
/// gradient of Sort (axis) and of ReduceMedian (axes). Inputs: dY (0), indices (1).
class IndexScatterGradOp final : public ShapeGradOp {
public:
  IndexScatterGradOp(const OperatorIdentifier &id, const Op &fwd, std::vector<int64_t> axes)
      : ShapeGradOp(id, fwd, 0, {{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::Out}}), axes_(std::move(axes)) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const std::vector<int64_t> &axes() const { return axes_; }

private:
  std::vector<int64_t> axes_;
};

} // namespace popart
