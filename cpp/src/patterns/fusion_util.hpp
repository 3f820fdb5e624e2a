// Helpers of the inference fusion patterns (ConvFusion, GemmFusion): which consumer an op's result may be
// folded into.
#pragma once
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/tensor.hpp"

namespace popart::fusion {

inline bool isOnnx(const Op *op, const char *type) {
  return op && op->opid.domain == Domain::ai_onnx && op->opid.type == type;
}

/// The only consumer of `op`'s single output when that output is an internal tensor read once (not a graph
/// output or anchor) by an op of the same stage and execution context, else null.
inline Op *soleConsumer(const Op *op) {
  if (op->output->n() != 1 || !op->hasOutput(0)) return nullptr;
  const Tensor *t = op->outTensor(0);
  if (t->isGraphOutput() || op->getIr().getDataFlow().isAnchored(t->id) || t->consumers.getTotal() != 1)
    return nullptr;
  Op *c = t->consumers.getOps().front();
  bool sameStage = c->settings.vgraphId == op->settings.vgraphId &&
                   c->settings.pipelineStage == op->settings.pipelineStage &&
                   c->settings.executionContext == op->settings.executionContext;
  return sameStage ? c : nullptr;
}

inline bool fusibleRelu(const Op *op) { return isOnnx(op, "Relu") && op->input->n() == 1; }

/// Whether `op` takes part in a topological constraint (fusing it would drop the constraint).
inline bool constrained(const Op *op) {
  for (const auto &[b, a] : op->getGraph().getTopoCons())
    if (b == op->id || a == op->id) return true;
  return false;
}

} // namespace popart::fusion
