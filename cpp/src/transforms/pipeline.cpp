// The passes of the IR preparation pipeline, in order.
#include "transforms/pipeline.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "ops/host_io.hpp"
#include "popart/tensor.hpp"
#include "transforms/autodiff.hpp"
#include "transforms/constfold.hpp"
#include "transforms/custom_transforms.hpp"
#include "transforms/host_copy_ops.hpp"
#include "transforms/inplace.hpp"
#include "transforms/order_modifiers.hpp"
#include "transforms/separate_views.hpp"
#include "transforms/prune.hpp"
#include "transforms/recompute.hpp"
#include <cstdlib>
#include <fstream>
#include <set>

namespace popart {
namespace {

void checkAnchors(const Ir &ir) {
  for (const auto &id : ir.getDataFlow().anchors())
    if (!ir.getMainGraph().getTensors().contains(id) && !findHostStore(ir, id))
      throw error("anchor tensor '{}' is not in the model (it may have been removed as unused, or "
                  "the name is misspelt)", id);
}

void forEachGraph(Ir &ir, const std::function<void(Graph &)> &f) {
  for (Graph *g : ir.getAllGraphs()) f(*g);
}

void applyPatterns(Ir &ir) {
  forEachGraph(ir, [&](Graph &g) { ir.getPatterns().applyAll(g); });
}

// Autodiff of the main graph, recomputation of the forward ops it marks, the
// patterns on the new backward graphs, then the optimizer's update ops.
void differentiate(Ir &ir) {
  if (!ir.isTraining()) return;
  std::set<OpId> forward;
  for (const auto &[id, op] : ir.getMainGraph().getOps()) forward.insert(id);
  autodiff(ir);
  recompute(ir, forward);
  ir.dotCheckpoint("BWD0");
  applyCustomTransforms(ir, "Bwd0");
  applyPatterns(ir);
  addOptimizerOps(ir);
}

void dumpIr(Ir &ir) {
  const char *dump = std::getenv("POPART_IR_DUMP");
  if (!dump) return;
  std::ofstream f(dump);
  if (!f) throw error("POPART_IR_DUMP: cannot write '{}'", dump);
  f << ir.serialise();
}

std::vector<IrPass> makePasses() {
  return {
      {"checkMandatoryPatterns", [](Ir &ir) {
         if (ir.getPatterns().getRuntimeAssertsOn()) ir.getPatterns().ensureAllMandatoryPreAliasPatternsAreEnabled();
       }},
      {"checkInferenceAnchors", [](Ir &ir) { if (!ir.isTraining()) checkAnchors(ir); }},
      {"checkCustomTransforms", checkCustomTransformSettings},
      {"dotFwd0", [](Ir &ir) { ir.dotCheckpoint("FWD0"); }},
      {"customFwd0", [](Ir &ir) { applyCustomTransforms(ir, "Fwd0"); }},
      {"patterns", applyPatterns},
      {"dotFwd1", [](Ir &ir) { ir.dotCheckpoint("FWD1"); }},
      {"customFwd1", [](Ir &ir) { applyCustomTransforms(ir, "Fwd1"); }},
      {"constantFolding", [](Ir &ir) { forEachGraph(ir, [](Graph &g) { foldConstants(g); }); }},
      {"orderModifiers", [](Ir &ir) {
         if (!ir.isExplicitProgram()) forEachGraph(ir, [](Graph &g) { orderModifiers(g); });
       }},
      {"separateViews", [](Ir &ir) {
         if (ir.isExplicitProgram()) forEachGraph(ir, [](Graph &g) { separateViews(g); });
       }},
      {"autodiff", differentiate},
      {"prune", [](Ir &ir) { prune(ir.getMainGraph()); }},
      {"hostCopyOps", [](Ir &ir) { if (ir.getSessionOptions().useHostCopyOps) addHostCopyOps(ir); }},
      {"dotPreAlias", [](Ir &ir) { ir.dotCheckpoint("PREALIAS"); }},
      {"customPreAlias", [](Ir &ir) { applyCustomTransforms(ir, "PreAlias"); }},
      // The main loops are implicit in the CPU executor: their checkpoint follows PreAlias.
      {"customMainLoops", [](Ir &ir) { applyCustomTransforms(ir, "MainLoops"); }},
      {"inplace", [](Ir &ir) {
         if (ir.getPatterns().isInPlaceEnabled()) forEachGraph(ir, [](Graph &g) { inplace(g); });
       }},
      {"checkAnchors", checkAnchors},
      {"customFinal", [](Ir &ir) { applyCustomTransforms(ir, "Final"); }},
      {"dotFinal", [](Ir &ir) { ir.dotCheckpoint("FINAL"); }},
      {"dumpIr", dumpIr},
  };
}

} // namespace

const std::vector<IrPass> &irPasses() {
  static const std::vector<IrPass> passes = makePasses();
  return passes;
}

void runIrPipeline(Ir &ir) {
  if (ir.isPrepared()) throw error("the IR is already prepared: the pipeline runs once");
  for (const IrPass &pass : irPasses()) {
    logging::ir::debug("IR pass '{}'", pass.name);
    pass.run(ir);
  }
  ir.setIsPrepared();
}

} // namespace popart
