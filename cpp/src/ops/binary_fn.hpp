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

private:
  void checkTypes() const;
  Shape shapeA_, shapeB_;
};

} // namespace popart
