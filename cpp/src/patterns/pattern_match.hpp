// Matching helpers of the training fusion patterns (GeluFusion, TrainingLayerNormFusion): which op reads a result,
// scalar constants, topological constraints.
#pragma once
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/half.hpp"
#include "popart/ir.hpp"
#include "popart/tensor.hpp"
#include <cmath>
#include <vector>

namespace popart::match {

inline bool isOnnxOp(const Op *op, const char *type) {
  return op && op->opid.domain == Domain::ai_onnx && op->opid.type == type;
}

/// The only consumer of `op`'s output 0 when it is an internal tensor read once by an op of the same stage.
inline Op *onlyReader(const Op *op) {
  if (!op || op->output->n() != 1 || !op->hasOutput(0)) return nullptr;
  const Tensor *t = op->outTensor(0);
  if (t->isGraphOutput() || op->getIr().getDataFlow().isAnchored(t->id) || t->consumers.getTotal() != 1)
    return nullptr;
  Op *c = t->consumers.getOps().front();
  bool same = c->settings.vgraphId == op->settings.vgraphId && c->settings.pipelineStage == op->settings.pipelineStage &&
              c->settings.executionContext == op->settings.executionContext;
  return same ? c : nullptr;
}

/// The value of a one-element float Const tensor, or NaN.
inline double constScalar(const Tensor *t) {
  if (t->tensorType() != TensorType::Const || !t->hasTensorData() || t->info.nelms() != 1) return std::nan("");
  const char *d = t->tensorData().data();
  switch (t->info.dataType()) {
  case DataType::FLOAT: return *reinterpret_cast<const float *>(d);
  case DataType::DOUBLE: return *reinterpret_cast<const double *>(d);
  case DataType::FLOAT16: return static_cast<float>(*reinterpret_cast<const float16_t *>(d));
  default: return std::nan("");
  }
}

/// The tensor that binary `op` of `type` combines with a scalar constant near c (the constant on the right
/// only unless `commutes`), or null.
inline const Tensor *scalarOperand(const Op *op, const char *type, double c, bool commutes = true) {
  if (!isOnnxOp(op, type) || op->input->n() != 2 || !op->hasInput(0) || !op->hasInput(1)) return nullptr;
  for (int k : {1, 0}) {
    if (k == 0 && !commutes) break;
    const Tensor *kt = op->inTensor(k);
    double tol = kt->info.dataType() == DataType::FLOAT16 ? 1e-3 : 1e-6;
    if (std::abs(constScalar(kt) - c) <= tol * std::abs(c) && op->outInfo(0) == op->inInfo(1 - k))
      return op->inTensor(1 - k);
  }
  return nullptr;
}

inline bool constrained(const std::vector<Op *> &ops) {
  for (const Op *op : ops)
    for (const auto &[b, a] : op->getGraph().getTopoCons())
      if (b == op->id || a == op->id) return true;
  return false;
}

} // namespace popart::match
