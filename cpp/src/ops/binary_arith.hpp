// Add, Sub, Mul, Div, Pow and their in-place variants (<Type>LhsInplace,
// <Type>RhsInplace), and the gradients <Type>Arg<i>Grad:
// declared here so kernels can read the broadcast shapes.
#pragma once
#include "popart/op/elementwise.hpp"

namespace popart {

/// Binary arithmetic with numpy broadcasting. Models at opset < 7 use the
/// legacy `broadcast`/`axis` attributes; broadcastShape() gives their numpy form.
class BinaryArithOp : public ElementWiseBinaryOp {
public:
  BinaryArithOp(const OperatorIdentifier &id, const Settings &settings);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// Input i's shape as broadcast against the output.
  const Shape &broadcastShape(InIndex i) const { return i == 0 ? shapeA_ : shapeB_; }
  /// "Add" for Add, AddLhsInplace and AddRhsInplace.
  const std::string &arithType() const { return arithType_; }

  bool aliases(InIndex in, OutIndex out) const override { return out == 0 && in == inplaceIn_; }
  bool modifies(InIndex in) const override { return in == inplaceIn_; }
  std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const override;
  std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;

private:
  void setupTypes();
  std::string arithType_;
  InIndex inplaceIn_ = -1;  // the input an in-place variant overwrites
  bool legacy_ = false;     // imported at opset < 7 (kept by in-place variants)
  Shape shapeA_, shapeB_;
};

/// Gradient of input `arg` of Add/Sub/Mul/Div/Pow: dX = sum over broadcast dims of
/// dY (Add), +-dY (Sub), dY * other (Mul), dY / B or -dY * A / B^2 (Div),
/// dY B A^(B-1) or dY A^B log A (Pow). Inputs: dY, then the forward inputs the
/// formula reads (Mul: the other input; Div arg0: B; Div arg1 and Pow: A, B).
class BinaryArithGradOp final : public Op {
public:
  BinaryArithGradOp(const BinaryArithOp &fwd, InIndex arg);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override;
  const std::map<int, int> &gradOutToNonGradIn() const override;
  const std::string &arithType() const { return arithType_; }
  InIndex arg() const { return arg_; }
  /// Forward input i's broadcast shape, and the forward output's shape.
  const Shape &fwdShape(InIndex i) const { return i == 0 ? shapeA_ : shapeB_; }
  const Shape &fwdOutShape() const { return outShape_; }

private:
  std::string arithType_;
  InIndex arg_;
  Shape shapeA_, shapeB_, outShape_;
  TensorInfo argInfo_;
};

} // namespace popart
