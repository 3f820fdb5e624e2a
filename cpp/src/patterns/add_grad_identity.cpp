// AddArgGradToIdentity (backward graphs): the gradient of an Add input (or of Sub's first input) that has the
// forward output's shape and type is dY itself: AddArg0Grad/AddArg1Grad/SubArg0Grad without a broadcast
// reduction become an ai.onnx Identity, a view of dY (IdentityRemoval may then drop it): no copy of a
// residual's or a Linear output's gradient per step. Gradients that the optimizer finds by name
// (Gradient___<weight>) keep their op.
#include "popart/graph.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"
#include "popart/tensor.hpp"
#include "popart/tensornames.hpp"

namespace popart {
namespace {

/// Whether `id` is Gradient___<w> of a Variable w (the optimizer finds it by that name).
bool weightGradient(const Graph &g, const TensorId &id) {
  const std::string prefix = reservedGradientPrefix();
  if (id.rfind(prefix, 0) != 0) return false;
  const TensorId w = id.substr(prefix.size());
  return g.getTensors().contains(w) && g.getTensors().get(w)->tensorType() == TensorType::Variable;
}

bool identityGrad(const Op *op) {
  const std::string &t = op->opid.type;
  if (op->opid.domain != Domain::ai_graphcore || (t != "AddArg0Grad" && t != "AddArg1Grad" && t != "SubArg0Grad"))
    return false;
  if (op->input->n() != 1 || !op->hasInput(0) || op->output->n() != 1 || !op->hasOutput(0)) return false;
  return op->outInfo(0) == op->inInfo(0) && !weightGradient(op->getGraph(), op->outId(0));
}

class AddArgGradToIdentity final : public Pattern {
public:
  bool matches(Op *op) const override { return identityGrad(op); }

  bool apply(Op *op) const override {
    Graph &g = op->getGraph();
    const TensorId in = op->inId(0), out = op->outId(0);
    Op::Settings settings = op->settings;
    settings.name = op->settings.name + "_identity";
    g.eraseOp(op->id);
    g.connectAndSetup(g.moveIntoGraph(OpManager::createOp(onnxOp("Identity", {1}), settings, {})), {{0, in}},
                      {{0, out}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(AddArgGradToIdentity, "AddArgGradToIdentity", false, PatternsLevel::Default);
} // namespace popart
