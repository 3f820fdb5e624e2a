// Detach (ai.graphcore 1): y = x, a view of the input; no gradient flows through it
// (getGradOps is empty, so autodiff stops here).
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class DetachOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
};

} // namespace
POPART_REGISTER_OP(DetachOp, graphcoreOp("Detach"), allTypes());
} // namespace popart
