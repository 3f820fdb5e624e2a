// BinaryConstScalar and its gradient, named by their kernel.
#pragma once
#include "popart/op/elementwise.hpp"

namespace popart {

enum class BinaryConstScalarKind { Mul = 0, Div, Add, Sub, Pow };

class BinaryConstScalarOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  BinaryConstScalarKind kind() const { return kind_; }
  float value() const { return value_; }
  bool scalarLeft() const { return scalarLeft_; }

private:
  BinaryConstScalarKind kind_ = BinaryConstScalarKind::Mul;
  float value_ = 0.0f;
  bool scalarLeft_ = false;
};

/// Inputs dY, X.
class BinaryConstScalarGradOp final : public ElementWiseNonLinearUnaryGradOp {
public:
  explicit BinaryConstScalarGradOp(const BinaryConstScalarOp &fwd);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  BinaryConstScalarKind kind() const { return kind_; }
  float value() const { return value_; }
  bool scalarLeft() const { return scalarLeft_; }

private:
  BinaryConstScalarKind kind_;
  float value_;
  bool scalarLeft_;
};

} // namespace popart
