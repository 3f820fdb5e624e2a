// Abort (ai.graphcore 1): stops the run with a runtime error, unconditionally or
// when any element of its optional condition input is true. No outputs; a side
// effect, so it is never pruned or constant-folded.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class AbortOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (input->n() > 1) throw error("takes at most one input (the condition), got {}", input->n());
  }
  bool hasSideEffect() const override { return true; }
};

} // namespace
POPART_REGISTER_OP(AbortOp, graphcoreOp("Abort"), allTypes());
} // namespace popart
