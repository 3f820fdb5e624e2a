// EinsumOp and EinsumGradOp, named by their kernel (which reads the parsed equation).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Einsum (ai.onnx 12): y[out labels] = sum over the other labels of prod_k x_k[labels_k].
/// "..." stands for broadcast leading dims; without "->" the output is the labels used
/// once, in alphabetical order, after the ellipsis dims.
class EinsumOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup(): label ids of each input's dims and of the output's dims,
  /// and the size of every label (ids index `sizes`).
  const std::vector<std::vector<int>> &inputLabels() const { return inLabels_; }
  const std::vector<int> &outputLabels() const { return outLabels_; }
  const std::vector<int64_t> &sizes() const { return sizes_; }

private:
  std::vector<std::vector<int>> inLabels_;
  std::vector<int> outLabels_;
  std::vector<int64_t> sizes_;
};

/// Gradient of Einsum input `arg`: itself an einsum of dY (input 0, the forward output's labels)
/// and the other forward inputs (inputs 1.., in order) onto the labels of input `arg`. Its
/// repeated labels (diagonals) get zeros off the diagonal; size-1 dims broadcast in the
/// forward are summed.
class EinsumGradOp final : public Op {
public:
  EinsumGradOp(const EinsumOp &fwd, InIndex arg);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return gradIn_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return gradOut_; }
  /// Label ids of each input's dims (dY first), of the output's dims, and every label's size.
  const std::vector<std::vector<int>> &inputLabels() const { return inLabels_; }
  const std::vector<int> &outputLabels() const { return outLabels_; }
  const std::vector<int64_t> &sizes() const { return sizes_; }

private:
  TensorInfo argInfo_;
  std::vector<GradInOutMapper> gradIn_;
  std::map<int, int> gradOut_;
  std::vector<std::vector<int>> inLabels_;
  std::vector<int> outLabels_;
  std::vector<int64_t> sizes_;
};

} // namespace popart
