// TransposeOp, named by its kernel (which reads the resolved permutation).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Transpose (ai.onnx 1, 13, 21): y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_n-1].
/// Its grad op (TransposeGrad) is a TransposeOp with the inverse permutation.
class TransposeOp : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Output axis k is input axis perm()[k]; valid after setup().
  const std::vector<int64_t> &perm() const { return perm_; }

private:
  std::vector<int64_t> perm_;
};

} // namespace popart
