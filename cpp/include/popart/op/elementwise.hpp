// Bases for element-wise ops: unary (out = f(in)), binary with numpy
// broadcasting, and the grad of a non-linear unary op (inputs dY, X -> dX).
#pragma once
#include "popart/op.hpp"

namespace popart {

class ElementWiseUnaryOp : public Op {
public:
  using Op::Op;
  void setup() override;
};

/// Unary op writing its result into its input.
class ElementWiseInplaceUnaryOp : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return in == 0; }
};

class ElementWiseBinaryOp : public Op {
public:
  using Op::Op;
  void setup() override;  // output: broadcast shape, type of input 0 (inputs must agree)
};

/// Comparison/logical binary ops: broadcast shape, BOOL output.
class BinaryComparisonOp : public Op {
public:
  using Op::Op;
  void setup() override;
};

/// Gradient of y = f(x): inputs (dY at 0, X at 1), output dX at 0.
class ElementWiseNonLinearUnaryGradOp : public Op {
public:
  ElementWiseNonLinearUnaryGradOp(const OperatorIdentifier &id, const Op &fwd);
  ElementWiseNonLinearUnaryGradOp(const OperatorIdentifier &id, const Op::Settings &s) : Op(id, s) {}
  void setup() override;
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
};

/// Gradient computed from the forward output: inputs (dY at 0, Y at 1), output dX at 0.
class ElementWiseOutputGradOp : public Op {
public:
  ElementWiseOutputGradOp(const OperatorIdentifier &id, const Op &fwd) : Op(id, fwd.settings) {}
  void setup() override { outInfo(0) = inInfo(1); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
};

} // namespace popart
