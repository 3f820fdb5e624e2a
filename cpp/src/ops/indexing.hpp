// Element- and tuple-indexed gathers and scatters, named by their kernels:
// GatherElements, ScatterElements/Scatter, GatherND, ScatterND.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// How a scatter combines an update with the value already there.
enum class ScatterReduction { None, Add, Mul, Max, Min };

/// GatherElements (ai.onnx 11, 13): y[i] = x[i with i_axis := indices[i]], y shaped as indices.
class GatherElementsOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
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
  ScatterReduction reduction() const { return reduction_; }

private:
  ScatterReduction reduction_ = ScatterReduction::None;
};

/// The `reduction` attribute of a scatter of ONNX version `version` (none before 16,
/// add/mul from 16, max/min from 18); throws naming the value otherwise.
ScatterReduction scatterReduction(const Op &op);

/// Throws unless input `i` holds INT32 or INT64 indices.
void checkIndicesDataType(const Op &op, InIndex i);

} // namespace popart
