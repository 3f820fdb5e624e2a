// PadOp, named by its kernel (which reads the resolved per-axis pads and mode).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Pad (ai.onnx 2: pads/value attributes; 11, 13: pads and constant_value
/// inputs; 18: axes input; 19, 21: mode "wrap"). Negative pads crop first; the
/// mode then pads the cropped tensor.
class PadOp final : public Op {
public:
  enum class Mode { Constant, Reflect, Edge, Wrap };
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  std::vector<InIndex> constantInputs() const override { return {1, 3}; }
  /// Valid after setup(): pads per input axis (negative = crop).
  const std::vector<int64_t> &padsBegin() const { return begin_; }
  const std::vector<int64_t> &padsEnd() const { return end_; }
  Mode mode() const { return mode_; }
  /// The constant is input 2 (read at run time) rather than attribute `value`.
  bool valueFromInput() const { return opid.version >= 11 && hasInput(2); }
  double valueAttr() const { return attr<Attributes::Float>("value", 0.0f); }

private:
  std::vector<int64_t> begin_, end_;
  Mode mode_ = Mode::Constant;
};

/// dx[i] = sum of dy[o] over the outputs o that read x[i] (the constant, and
/// cropped-away inputs, get nothing). Input: dY; pads and the constant get no gradient.
class PadGradOp final : public ShapeGradOp {
public:
  explicit PadGradOp(const PadOp &fwd)
      : ShapeGradOp(internalOp("PadGrad"), fwd), begin_(fwd.padsBegin()), end_(fwd.padsEnd()), mode_(fwd.mode()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const std::vector<int64_t> &padsBegin() const { return begin_; }
  const std::vector<int64_t> &padsEnd() const { return end_; }
  PadOp::Mode mode() const { return mode_; }

private:
  std::vector<int64_t> begin_, end_;
  PadOp::Mode mode_;
};

} // namespace popart
