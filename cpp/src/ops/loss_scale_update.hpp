// LossScaleUpdate, named by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Inputs: the update factor, then one or more gradient statistics. No gradient.
class LossScaleUpdateOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// Valid after setup().
  double thresholdUpperCountProportion() const { return threshold_; }

private:
  double threshold_ = 1e-7;
};

} // namespace popart
