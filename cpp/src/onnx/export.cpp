// modelToHost: the imported model with its initializers replaced by the
// session's current weights.
#include "import.hpp"
#include "model.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/tensor.hpp"

namespace popart {

std::string exportModelWithWeights(const Ir &ir) {
  const onnxpb::Model *orig = ir.getModel();
  if (!orig) throw error("modelToHost: the IR was built op by op and has no ONNX model to export; read the weights with readWeights or weightsToHost instead");
  onnxpb::Model m = *orig;
  const Graph &g = ir.getMainGraph();
  for (auto &init : m.graph.initializer) {
    if (!g.getTensors().contains(init.name)) continue;
    const Tensor *t = g.getTensor(init.name);
    if (!t->hasTensorData()) continue;
    onnxpb::Tensor fresh;
    fresh.name = init.name;
    fresh.dims = init.dims;
    fresh.dataType = init.dataType;
    fresh.docString = init.docString;
    fresh.hasRawData = true;
    fresh.rawData = packedRawData(t->info, t->tensorData().data());
    init = std::move(fresh);
  }
  // Optimizer state travels with the weights, so training can resume from the file.
  for (const Tensor *t : g.getTensors().getOfType(TensorType::Variable)) {
    if (!isOptimizerStateId(t->id) || !t->hasTensorData()) continue;
    onnxpb::Tensor state;
    state.name = t->id;
    state.dims = t->info.shape();
    state.dataType = onnxDataType(t->info.dataType());
    state.hasRawData = true;
    state.rawData = packedRawData(t->info, t->tensorData().data());
    m.graph.initializer.push_back(std::move(state));
  }
  return onnxpb::serializeModel(m);
}

} // namespace popart
