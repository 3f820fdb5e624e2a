// ai.graphcore ScatterReduce / GroupedScatterReduce / GroupedGather and their
// gradients, named by their kernels.
#pragma once
#include "popart/op.hpp"
#include "popart/opidentifiers.hpp"

namespace popart {

/// PopART's ScatterReduction attribute values.
enum class GcScatterReduction { Sum = 0, Max = 1, Min = 2, Mul = 3, None = 4 };

/// Layout shared by the scatter ops: src viewed as [outer, n, inner] around the axis,
/// the output as [outer, axisSize, inner]; index element of src position p is
/// index[sum_k i_k(p) * indexStrides[k]] (stride 0 on broadcast dimensions).
struct ScatterLayout {
  int64_t outer = 1, n = 1, inner = 1, axisSize = 1;
  Shape srcShape;
  std::vector<int64_t> indexStrides;
};

class ScatterReduceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  const ScatterLayout &layout() const { return layout_; }
  GcScatterReduction reduction() const { return reduction_; }

private:
  void setupIndex(int64_t axis, int64_t groups);
  ScatterLayout layout_;
  GcScatterReduction reduction_ = GcScatterReduction::Sum;
};

/// Inputs: dY, src, index, Y (forward output), initial values (when the forward had
/// them). Outputs: dSrc (0) and dInitial (1, when present).
class ScatterReduceGradOp final : public Op {
public:
  explicit ScatterReduceGradOp(const ScatterReduceOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }
  const ScatterLayout &layout() const { return layout_; }
  GcScatterReduction reduction() const { return reduction_; }

private:
  ScatterLayout layout_;
  GcScatterReduction reduction_;
  TensorInfo srcInfo_, initInfo_;
  std::vector<GradInOutMapper> ins_;
  std::map<int, int> outs_;
};

/// data viewed as [groups, outer, d, inner], indices as [groups, nIdx], output as
/// [groups, outer, nIdx, inner].
struct GroupedGatherLayout {
  int64_t groups = 1, outer = 1, dim = 1, inner = 1, nIdx = 0;
};

class GroupedGatherOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  const GroupedGatherLayout &layout() const { return layout_; }

private:
  GroupedGatherLayout layout_;
};

/// dData = zeros, dData[g, o, idx[g, j], i] += dY[g, o, j, i]. Inputs dY, indices.
class GroupedGatherGradOp final : public Op {
public:
  explicit GroupedGatherGradOp(const GroupedGatherOp &fwd)
      : Op(internalOp("GroupedGatherGrad"), fwd.settings), layout_(fwd.layout()), dataInfo_(fwd.inInfo(0)) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = dataInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
  const GroupedGatherLayout &layout() const { return layout_; }

private:
  GroupedGatherLayout layout_;
  TensorInfo dataInfo_;
};

} // namespace popart
