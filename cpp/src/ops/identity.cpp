// Identity (ai.onnx 1, 13, 14, 16, 19, 21): y = x, as a view of the input.
// Gradient: dx = dy (ReshapeGrad, a view).
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class IdentityOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReshapeGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(IdentityOp, onnxOp("Identity", {1, 13, 14, 16, 19, 21}), shapeutil::copyableTypes());
} // namespace popart
