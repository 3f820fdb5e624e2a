// Binary element-wise ops beyond Add/Sub/Mul/Div/Pow, one class so kernels can read
// the broadcast shapes: comparisons and And/Or/Xor (BOOL output), bitwise ops,
// BitShift, Mod, PRelu, ai.graphcore Atan2/Fmod/Remainder/Bitwise*/ScaledAdd.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// z = f(a, b) with numpy broadcasting; ops imported at opset 1 with the legacy
/// `broadcast`/`axis` attributes have B's shape mapped to its numpy form. PRelu
/// broadcasts its slope to X only. ScaledAdd takes optional scalar scale inputs 2, 3.
class BinaryFnOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  /// Input i's shape as broadcast against the output (i = 0, 1).
  const Shape &broadcastShape(InIndex i) const { return i == 0 ? shapeA_ : shapeB_; }
  std::vector<std::unique_ptr<Op>> getGradOps() override;

private:
  void checkTypes() const;
  Shape shapeA_, shapeB_;
};

/// Gradient "<Type>Arg<i>Grad" of input `arg` (0 or 1) of Atan2, Fmod, Remainder,
/// Mod (fmod=1), PRelu or ScaledAdd: t = dY * d(out)/d(in) over the output's shape,
/// summed over the input's broadcast dims. Inputs: dY, then A, B (ScaledAdd arg 0/1:
/// its scale input 2/3 when present, at grad input 3/4; ScaledAdd arg 2/3, the
/// gradient of a scale: the operand it scales, at grad input 1).
class BinaryFnGradOp final : public Op {
public:
  BinaryFnGradOp(const BinaryFnOp &fwd, InIndex arg);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return gradIn_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return toArg_; }
  /// "Atan2" for Atan2Arg0Grad; Mod with fmod=1 is reported as "Fmod".
  const std::string &fnType() const { return fnType_; }
  InIndex arg() const { return arg_; }
  /// Forward input i's broadcast shape, and the forward output's shape.
  const Shape &fwdShape(InIndex i) const { return i == 0 ? shapeA_ : shapeB_; }
  const Shape &fwdOutShape() const { return outShape_; }

private:
  std::string fnType_;
  InIndex arg_;
  Shape shapeA_, shapeB_, outShape_;
  TensorInfo argInfo_;
  std::vector<GradInOutMapper> gradIn_;
  std::map<int, int> toArg_;
};

} // namespace popart
