// Reduce* ops: one class, so kernels can read the resolved reduction axes.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare. Axes come from
/// the `axes` attribute, or from constant input 1 (ReduceSum >= 13, others >= 18).
class ReduceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override;
  /// Sorted, non-negative reduction axes (all dims when none were given).
  const std::vector<int64_t> &axes() const { return axes_; }
  /// Empty axes with noop_with_empty_axes=1: the output is the input.
  bool isNoop() const { return noop_; }
  bool axesFromInput() const;

private:
  std::vector<int64_t> axes_;
  bool noop_ = false;
};

} // namespace popart
