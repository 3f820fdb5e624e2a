// SplitOp, named by its kernel (which reads the resolved axis and sizes).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Split (ai.onnx 1, 2, 11, 13, 18): output i = x[..., o_i : o_i + split[i], ...]
/// along axis, o_i = split[0] + ... + split[i-1].
class SplitOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override { return {1}; }
  /// Valid after setup(): the axis in [0, rank) and the size of each output.
  int64_t axis() const { return axis_; }
  const std::vector<int64_t> &splits() const { return splits_; }

private:
  std::vector<int64_t> requestedSplit() const;
  int64_t axis_ = 0;
  std::vector<int64_t> splits_;
};

} // namespace popart
