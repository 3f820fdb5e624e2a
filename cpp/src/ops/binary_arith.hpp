// Add, Sub, Mul, Div, Pow and their in-place variants (<Type>LhsInplace,
// <Type>RhsInplace): one class, so kernels can read the broadcast shapes.
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

private:
  void setupTypes();
  std::string arithType_;
  InIndex inplaceIn_ = -1;  // the input an in-place variant overwrites
  bool legacy_ = false;     // imported at opset < 7 (kept by in-place variants)
  Shape shapeA_, shapeB_;
};

} // namespace popart
