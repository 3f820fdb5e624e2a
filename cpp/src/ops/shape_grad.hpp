// Base of the data-movement grad ops (Reshape family, Concat, Split, Slice,
// Gather, Cast): the output is the gradient of one forward input and has
// exactly that input's type and shape, recorded when the grad op is made.
// ReshapeGradOp is the gradient of every view op.
#pragma once
#include "popart/op.hpp"
#include "popart/opidentifiers.hpp"

namespace popart {

class ShapeGradOp : public Op {
public:
  /// Input 0 is the gradient of forward output 0 unless `ins` says otherwise;
  /// output 0 is the gradient of forward input `xIndex`.
  ShapeGradOp(const OperatorIdentifier &id, const Op &fwd, InIndex xIndex = 0,
              std::vector<GradInOutMapper> ins = {{0, 0, GradOpInType::GradOut}})
      : Op(id, fwd.settings), xInfo_(fwd.inInfo(xIndex)), ins_(std::move(ins)), outs_{{0, xIndex}} {}
  void setup() override { outInfo(0) = xInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }

private:
  TensorInfo xInfo_;
  std::vector<GradInOutMapper> ins_;
  std::map<int, int> outs_;
};

/// dx = dy viewed with x's shape (aliases dY): the gradient of the view ops
/// Reshape, Flatten, Squeeze, Unsqueeze, Identity and inference Dropout.
class ReshapeGradOp final : public ShapeGradOp {
public:
  explicit ReshapeGradOp(const Op &fwd) : ShapeGradOp(internalOp("ReshapeGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
};

} // namespace popart
