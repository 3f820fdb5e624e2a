// Ir::prepare: the ONNX front end (import the model into the IR) followed by
// the preparation pipeline every front end runs.
#include "onnx/import.hpp"
#include "onnx/model.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/dataflow.hpp"
#include "transforms/pipeline.hpp"

namespace popart {

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
}

} // namespace popart
