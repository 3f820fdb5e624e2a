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
#include "popart/tensor.hpp"
#include "transforms/pipeline.hpp"

namespace popart {
namespace {

// A TensorProto without its values (keep in step with onnxpb::Tensor's payload fields).
onnxpb::Tensor withoutValues(const onnxpb::Tensor &t) {
  onnxpb::Tensor h;
  h.dims = t.dims;
  h.dataType = t.dataType;
  h.name = t.name;
  h.docString = t.docString;
  h.hasRawData = t.hasRawData;
  h.externalData = t.externalData;
  h.dataLocation = t.dataLocation;
  h.metadataProps = t.metadataProps;
  h.unknown = t.unknown;
  return h;
}

// The model with its main graph's initializers as names, types and shapes only: the
// values live in the IR's tensors once imported, so the IR does not keep a second copy.
onnxpb::Model withoutInitializerValues(const onnxpb::Model &m) {
  onnxpb::Model out;
  out.irVersion = m.irVersion;
  out.opsetImport = m.opsetImport;
  out.producerName = m.producerName;
  out.producerVersion = m.producerVersion;
  out.domain = m.domain;
  out.modelVersion = m.modelVersion;
  out.docString = m.docString;
  out.hasGraph = m.hasGraph;
  out.metadataProps = m.metadataProps;
  out.unknown = m.unknown;
  out.externalInitializers = m.externalInitializers;
  const onnxpb::Graph &g = m.graph;
  out.graph.node = g.node;
  out.graph.name = g.name;
  out.graph.docString = g.docString;
  out.graph.input = g.input;
  out.graph.output = g.output;
  out.graph.valueInfo = g.valueInfo;
  out.graph.metadataProps = g.metadataProps;
  out.graph.unknown = g.unknown;
  out.graph.initializer.reserve(g.initializer.size());
  for (const auto &t : g.initializer) out.graph.initializer.push_back(withoutValues(t));
  return out;
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
  model_ = std::make_unique<onnxpb::Model>(withoutInitializerValues(*b.model));
  importModel(*this, *b.model);
  runIrPipeline(*this);
  // An initializer whose values no host tensor of the main graph holds (folded into a
  // constant, pruned) keeps them in the model, for modelToHost to write back unchanged.
  const auto &tensors = getMainGraph().getTensors();
  for (size_t i = 0; i < model_->graph.initializer.size(); ++i) {
    onnxpb::Tensor &init = model_->graph.initializer[i];
    if (!tensors.contains(init.name) || !tensors.get(init.name)->hasTensorData())
      init = b.model->graph.initializer[i];
  }
}

} // namespace popart
