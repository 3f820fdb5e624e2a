// Relu (ai.onnx 6, 13, 14): y = max(x, 0).   Gradient: dx = dy * (y > 0).
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class ReluGradOp final : public ElementWiseOutputGradOp {  // inputs: dY (0), Y (1)
public:
  explicit ReluGradOp(const Op &fwd) : ElementWiseOutputGradOp(internalOp("ReluGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class ReluInplaceOp final : public ElementWiseInplaceUnaryOp {
public:
  using ElementWiseInplaceUnaryOp::ElementWiseInplaceUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class ReluOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReluGradOp>(*this); }
  std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const override {
    return {{internalOp("ReluInplace"), 10.0f}};
  }
  std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const override {
    auto op = std::make_unique<ReluInplaceOp>(id, settings);
    op->attributes() = attributes();
    return op;
  }
};

} // namespace
POPART_REGISTER_OP(ReluOp, onnxOp("Relu", {6, 13, 14}), numericTypes());
POPART_REGISTER_OP(ReluInplaceOp, internalOp("ReluInplace"));
POPART_REGISTER_OP(ReluGradOp, internalOp("ReluGrad"));
} // namespace popart
