// Ir::prepare: the ONNX front end (import the model into the IR) followed by
// the preparation pipeline every front end runs.
#include "onnx/import.hpp"
#include "onnx/model.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/tensor.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/dataflow.hpp"
#include "transforms/pipeline.hpp"

namespace popart {
namespace {

/// The IR keeps the model (modelToHost, name checks), but the bytes of initializers that are now tensors
/// with host data are read from those tensors: the model's copy is dropped, so weights are not held twice.
void dropImportedInitializerData(onnxpb::Model &m, const Graph &g) {
  for (auto &init : m.graph.initializer) {
    if (m.externalInitializers.count(init.name) || !g.getTensors().contains(init.name) ||
        !g.getTensor(init.name)->hasTensorData())
      continue;
    std::string().swap(init.rawData);
    std::vector<float>().swap(init.floatData);
    std::vector<int32_t>().swap(init.int32Data);
    std::vector<int64_t>().swap(init.int64Data);
    std::vector<double>().swap(init.doubleData);
    std::vector<uint64_t>().swap(init.uint64Data);
  }
}

} // namespace

void Ir::prepare(const IrBundle &b) {
  if (prepared_) throw error("Ir::prepare called twice");
  if (!b.model) throw error("Ir::prepare needs an ONNX model");
  if (b.userOptions) setUserOptions(*b.userOptions);
  if (b.dataFlow) setDataFlow(*b.dataFlow);
  if (b.patterns) setPatterns(*b.patterns);
  if (b.inputShapeInfo) *inputShapeInfo_ = *b.inputShapeInfo;
  if (b.optimizer) setOptimizer(*b.optimizer);
  finalLossId_ = b.loss;
  setOnnxModel(*b.model);
  importModel(*this);
  runIrPipeline(*this);
  dropImportedInitializerData(*model_, getMainGraph());
}

} // namespace popart
