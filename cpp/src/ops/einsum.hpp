// EinsumOp, named by its kernel (which reads the parsed equation).
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

} // namespace popart
