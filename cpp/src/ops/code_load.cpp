// RemoteCodeLoad (ai.graphcore 1, no inputs or outputs): loads the code of graph `graph_id` into
// `destination` ("executable") from streaming memory. On an IPU this bounds the code's liveness; on the CPU
// code is always resident, so the op only orders itself among the ops around it (in_sequence) and checks
// its arguments when it is set up. It runs as a no-op and is kept by pruning like any op with an effect.
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class RemoteCodeLoadOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto graphId = attr<Attributes::String>("graph_id", "");
    const auto destination = attr<Attributes::String>("destination", "");
    if (destination != "executable")
      throw error("attribute 'destination' is '{}'; code can only be loaded to 'executable'", destination);
    if (graphId.empty()) throw error("attribute 'graph_id' is missing or empty: the main graph's code cannot be loaded");
    if (!getIr().hasGraph(graphId)) throw error("attribute 'graph_id': the Ir has no graph '{}'", graphId);
  }
  bool hasSideEffect() const override { return true; }
};

} // namespace
POPART_REGISTER_OP(RemoteCodeLoadOp, graphcoreOp("RemoteCodeLoad"));
} // namespace popart
