// Helpers of the fusion patterns (ConvFusion, GemmFusion, LayerNormFusion, GeluFusion): which consumer an op's
// result may be folded into, scalar constant operands, and the erf GELU recogniser GeluFusion and GemmFusion share.
#pragma once
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/half.hpp"
#include "popart/tensor.hpp"
#include <cmath>
#include <map>
#include <memory>
#include <vector>

namespace popart::fusion {

inline bool isOnnx(const Op *op, const char *type) {
  return op && op->opid.domain == Domain::ai_onnx && op->opid.type == type;
}

/// Whether `a` and `b` run in the same virtual graph, pipeline stage and execution context.
inline bool sameStage(const Op *a, const Op *b) {
  return a->settings.vgraphId == b->settings.vgraphId && a->settings.pipelineStage == b->settings.pipelineStage &&
         a->settings.executionContext == b->settings.executionContext;
}

/// The only consumer of `op`'s single output when that output is an internal tensor read once (not a graph
/// output or anchor) by an op of the same stage and execution context, else null.
inline Op *soleConsumer(const Op *op) {
  if (!op || op->output->n() != 1 || !op->hasOutput(0)) return nullptr;
  const Tensor *t = op->outTensor(0);
  if (t->isGraphOutput() || op->getIr().getDataFlow().isAnchored(t->id) || t->consumers.getTotal() != 1)
    return nullptr;
  Op *c = t->consumers.getOps().front();
  return sameStage(c, op) ? c : nullptr;
}

/// Whether the fused kernels handle element type `t` (float, float16 and double).
inline bool fusibleFloat(DataType t) {
  return t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE;
}

inline bool fusibleRelu(const Op *op) { return isOnnx(op, "Relu") && op->input->n() == 1; }

/// Whether `op` takes part in a topological constraint (fusing it would drop the constraint).
inline bool constrained(const Op *op) {
  for (const auto &[b, a] : op->getGraph().getTopoCons())
    if (b == op->id || a == op->id) return true;
  return false;
}

inline bool constrained(const std::vector<Op *> &ops) {
  for (const Op *op : ops)
    if (constrained(op)) return true;
  return false;
}

/// The MaxPool (one output, no indices, a fused type) that pattern MaxPoolReluFusion folds `relu` into: the sole
/// consumer of the Relu's result, in an inference graph; else null. Whether the pattern is enabled is not checked.
inline Op *maxPoolTakingRelu(Op *relu) {
  Op *pool = soleConsumer(relu);
  if (!pool || !isOnnx(pool, "MaxPool") || pool->output->n() != 1 || !pool->hasOutput(0) || relu->getIr().isTraining() ||
      pool->attr<Attributes::Int>("__relu", 0) != 0 || constrained(pool) || !fusibleFloat(pool->inInfo(0).dataType()))
    return nullptr;
  return pool;
}

/// The value of a one-element Const tensor of a float type, or NaN.
inline double scalarValue(const Tensor *t) {
  if (t->tensorType() != TensorType::Const || !t->hasTensorData() || t->info.nelms() != 1) return std::nan("");
  const char *d = t->tensorData().data();
  switch (t->info.dataType()) {
  case DataType::FLOAT: return *reinterpret_cast<const float *>(d);
  case DataType::DOUBLE: return *reinterpret_cast<const double *>(d);
  case DataType::FLOAT16: return static_cast<float>(*reinterpret_cast<const float16_t *>(d));
  default: return std::nan("");
  }
}

/// Whether `op` is a binary `type` of tensor `x` (either side when `commutes`) and a scalar constant near `c`.
inline bool scalarOp(const Op *op, const char *type, const Tensor *x, double c, bool commutes = true) {
  if (!isOnnx(op, type) || op->input->n() != 2 || op->outInfo(0) != x->info) return false;
  for (int i : {0, 1}) {
    if (op->inTensor(i) != x || (i == 1 && !commutes)) continue;
    const Tensor *k = op->inTensor(1 - i);
    double tol = k->info.dataType() == DataType::FLOAT16 ? 1e-3 : 1e-6;  // the constant as stored
    if (std::abs(scalarValue(k) - c) <= tol * std::abs(c)) return true;
  }
  return false;
}

/// The tensor that binary `op` of `type` combines with a scalar constant near c (the constant on the right
/// only unless `commutes`), or null.
inline const Tensor *scalarOperand(const Op *op, const char *type, double c, bool commutes = true) {
  if (!isOnnx(op, type) || op->input->n() != 2 || !op->hasInput(0) || !op->hasInput(1)) return nullptr;
  for (int k : {1, 0}) {
    if (k == 0 && !commutes) break;
    const Tensor *kt = op->inTensor(k);
    double tol = kt->info.dataType() == DataType::FLOAT16 ? 1e-3 : 1e-6;
    if (std::abs(scalarValue(kt) - c) <= tol * std::abs(c) && op->outInfo(0) == op->inInfo(1 - k))
      return op->inTensor(1 - k);
  }
  return nullptr;
}

/// An erf GELU, 0.5 x (1 + erf(x / sqrt 2)), in the two forms exporters write: e = Erf(x * (1/sqrt 2) or
/// x / sqrt 2), p = e + 1, then y = (x * 0.5) * p (torch's functional form) or y = (x * p) * 0.5 (torch.nn.GELU's).
struct ErfGelu {
  std::vector<Op *> ops;    // in the order they run, the last one producing y; empty: no match
  const Tensor *x = nullptr;
};

/// The erf GELU around `erf`, each intermediate read only by the next op (soleConsumer); x may have other readers.
inline ErfGelu erfGeluAround(Op *erf) {
  if (!isOnnx(erf, "Erf") || !erf->hasInput(0)) return {};
  Op *scale = erf->inTensor(0)->getProducerUnsafe();
  const Tensor *x = scale ? scalarOperand(scale, "Mul", 0.70710678118654752) : nullptr;
  if (!x && scale) x = scalarOperand(scale, "Div", 1.4142135623730951, false);
  Op *plusOne = soleConsumer(erf);
  if (!x || soleConsumer(scale) != erf || !plusOne || scalarOperand(plusOne, "Add", 1.0) != erf->outTensor(0)) return {};
  Op *product = soleConsumer(plusOne);
  if (!isOnnx(product, "Mul") || product->input->n() != 2 || product->outInfo(0) != x->info) return {};
  const Tensor *other = product->inTensor(product->inTensor(0) == plusOne->outTensor(0) ? 1 : 0);
  if (other == x) {  // (x * p) * 0.5
    Op *half = soleConsumer(product);
    if (half && scalarOperand(half, "Mul", 0.5) == product->outTensor(0)) return {{scale, erf, plusOne, product, half}, x};
    return {};
  }
  Op *half = other->getProducerUnsafe();  // (x * 0.5) * p
  if (half && scalarOperand(half, "Mul", 0.5) == x && soleConsumer(half) == product)
    return {{half, scale, erf, plusOne, product}, x};
  return {};
}

/// Whether tensor t may disappear into a fused op: not a graph output and not an anchor.
inline bool internal(const Tensor *t) {
  return !t->isGraphOutput() && !t->getIr().getDataFlow().isAnchored(t->id);
}

/// Replaces `chain` (ops in order, each feeding the next; nulls are skipped) by `fused`, connected to
/// `ins` and writing the last op's output; the chain's other outputs are removed with it.
inline void replaceChain(Graph &g, const std::vector<Op *> &chain, std::unique_ptr<Op> fused,
                         const std::map<InIndex, TensorId> &ins) {
  std::vector<Op *> ops;
  for (Op *op : chain)
    if (op) ops.push_back(op);
  const TensorId out = ops.back()->outId(0);
  std::vector<TensorId> dropped;
  for (Op *op : ops)
    if (op->outId(0) != out) dropped.push_back(op->outId(0));
  for (Op *op : ops) g.eraseOp(op->id);
  for (const auto &id : dropped) g.getTensors().remove(id);
  g.connectAndSetup(g.moveIntoGraph(std::move(fused)), ins, {{0, out}});
}

} // namespace popart::fusion
