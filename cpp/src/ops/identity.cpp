// Identity (ai.onnx 1, 13, 14, 16, 19, 21): y = x, as a view of the input.
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class IdentityOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
};

} // namespace
POPART_REGISTER_OP(IdentityOp, onnxOp("Identity", {1, 13, 14, 16, 19, 21}), allTypes());
} // namespace popart
