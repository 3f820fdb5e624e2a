// Element- and tuple-indexed gathers and scatters, named by their kernels:
// GatherElements, ScatterElements/Scatter, GatherND, ScatterND, and their gradients.
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// How a scatter combines an update with the value already there.
enum class ScatterReduction { None, Add, Mul, Max, Min };

/// GatherElements (ai.onnx 11, 13): y[i] = x[i with i_axis := indices[i]], y shaped as indices.
class GatherElementsOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t axis() const { return axis_; }  // valid after setup(), non-negative

private:
  int64_t axis_ = 0;
};

/// ScatterElements (11, 13, 16, 18) and Scatter (9, 11): y = x, then
/// y[i with i_axis := indices[i]] (op)= updates[i] in row-major order of indices.
class ScatterElementsOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t axis() const { return axis_; }
  ScatterReduction reduction() const { return reduction_; }

private:
  int64_t axis_ = 0;
  ScatterReduction reduction_ = ScatterReduction::None;
};

/// GatherND (11, 12, 13): y[b.., j..] = x[b.., indices[b.., j.., :], ...] with
/// batch_dims leading batch axes (12+).
class GatherNDOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  int64_t batchDims() const { return batchDims_; }

private:
  int64_t batchDims_ = 0;
};

/// ScatterND (11, 13, 16, 18): y = x, then y[indices[j.., :], ...] (op)= updates[j.., ...].
class ScatterNDOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  ScatterReduction reduction() const { return reduction_; }

private:
  ScatterReduction reduction_ = ScatterReduction::None;
};

/// dx = zeros of the data's shape, then dx[i with i_axis := indices[i]] += dy[i]: the
/// gradient of GatherElements, and of TopK's values (indices = TopK's second output).
class GatherElementsGradOp final : public ShapeGradOp {
public:
  /// `indices` says which forward tensor feeds grad input 1.
  GatherElementsGradOp(const Op &fwd, int64_t axis, GradInOutMapper indices)
      : ShapeGradOp(internalOp("GatherElementsGrad"), fwd, 0, {{0, 0, GradOpInType::GradOut}, indices}),
        axis_(axis) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  int64_t axis() const { return axis_; }

private:
  int64_t axis_;
};

/// dx = zeros of the data's shape, then dx[b.., indices[b.., j.., :], ...] += dy[b.., j.., ...].
/// Inputs: dY, indices.
class GatherNDGradOp final : public ShapeGradOp {
public:
  explicit GatherNDGradOp(const GatherNDOp &fwd)
      : ShapeGradOp(internalOp("GatherNDGrad"), fwd, 0, {{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}}),
        batchDims_(fwd.batchDims()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  int64_t batchDims() const { return batchDims_; }

private:
  int64_t batchDims_;
};

/// Gradients of a scatter (ScatterElementsGrad, ScatterNDGrad) for data (output 0)
/// and updates (output 1). Inputs: dY, indices, and for mul/max/min also data, updates.
/// none: dx = dy with the written positions zeroed, du = dy at each update's position
/// when that update is the last one written there (else 0); add: dx = dy, du = dy at
/// the position; mul: the product of the other factors; max/min: dy shared evenly
/// between the values equal to the result.
class ScatterGradOp final : public Op {
public:
  ScatterGradOp(const Op &fwd, ScatterReduction reduction, int64_t axis);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }
  ScatterReduction reduction() const { return reduction_; }
  int64_t axis() const { return axis_; }  // ScatterElements only

private:
  ScatterReduction reduction_;
  int64_t axis_;
  TensorInfo dataInfo_, updatesInfo_;
  std::vector<GradInOutMapper> ins_;
  std::map<int, int> outs_{{0, 0}, {1, 2}};
};

/// The `reduction` attribute of a scatter of ONNX version `version` (none before 16,
/// add/mul from 16, max/min from 18); throws naming the value otherwise.
ScatterReduction scatterReduction(const Op &op);

/// Throws unless input `i` holds INT32 or INT64 indices.
void checkIndicesDataType(const Op &op, InIndex i);

} // namespace popart
