// Optimizer lowering: per weight with a gradient, the state Variables, a
// hyper-parameter tensor [gradScale, ...], optional gradient accumulation and
// one fused OptimizerVarUpdate op.
#include "autodiff.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/half.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/optimizer.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include <cstring>

namespace popart {
namespace {

const std::string hyperPrefix = "OptimizerHyper___";

bool isReserved(const TensorId &id) {
  for (const auto &p : reservedPrefixes())
    if (id.rfind(p, 0) == 0) return true;
  return id.rfind(hyperPrefix, 0) == 0;
}

// Bytes of `info` with every element equal to v.
std::vector<char> filled(const TensorInfo &info, float v) {
  std::vector<char> out(static_cast<size_t>(info.nbytes()));
  int64_t n = info.nelms();
  for (int64_t i = 0; i < n; ++i) {
    switch (info.dataType()) {
    case DataType::FLOAT: reinterpret_cast<float *>(out.data())[i] = v; break;
    case DataType::DOUBLE: reinterpret_cast<double *>(out.data())[i] = v; break;
    case DataType::FLOAT16: reinterpret_cast<float16_t *>(out.data())[i] = float16_t(v); break;
    default: throw error("optimizer tensors of type {} are not supported", info.data_type());
    }
  }
  return out;
}

float gradScale(const Ir &ir) {
  const auto &o = ir.getSessionOptions();
  float s = 1.0f / ir.getOptimizer()->getLossScalingVal();
  if (o.accumulationAndReplicationReductionType == ReductionType::Mean) s /= static_cast<float>(o.getAccumulationFactor());
  return s;
}

std::vector<float> hyperValues(const Ir &ir, const TensorId &w) {
  std::vector<float> v{gradScale(ir)};
  for (float x : ir.getOptimizer()->varUpdate(w).hyperValues) v.push_back(x);
  return v;
}

void addVarUpdate(Ir &ir, Tensor *w, const TensorId &grad) {
  Graph &g = ir.getMainGraph();
  VarUpdateSpec spec = ir.getOptimizer()->varUpdate(w->id);
  auto hv = hyperValues(ir, w->id);
  g.getTensors().addVarInit(hyperPrefix + w->id, TensorInfo(DataType::FLOAT, {static_cast<int64_t>(hv.size())}), hv.data());
  std::map<InIndex, TensorId> ins{{0, w->id}, {1, grad}, {2, hyperPrefix + w->id}};
  InIndex next = 3;
  for (const auto &[name, init] : spec.state) {
    g.getTensors().addVarInit(name, w->info, filled(w->info, init).data());
    ins[next++] = name;
  }
  int64_t accum = ir.getSessionOptions().getAccumulationFactor();
  Attributes attrs;
  attrs.setAttribute("algorithm", spec.algorithm);
  for (const auto &[k, v] : spec.modes) attrs.setAttribute(k, v);
  if (accum > 1) {
    TensorId acc = reservedAccumPrefix() + w->id;
    g.getTensors().addVarInit(acc, w->info, filled(w->info, 0).data());
    g.createConnectedOp(internalOp("GradAccumulate"), {{0, acc}, {1, grad}}, {{0, acc + "__accumulated"}},
                        Attributes(), "GradAccumulate_" + w->id);
    ins[1] = acc;
    attrs.setAttribute("zeroGradient", Attributes::Int(1));
  }
  Op *op = g.createConnectedOp(internalOp("OptimizerVarUpdate"), ins, {{0, reservedUpdatedVarPrefix() + w->id}},
                               attrs, "VarUpdate_" + w->id);
  if (accum > 1) op->settings.executionContext = ExecutionContext::AccumulateOuterFragment;
  op->settings.optimizerOp = true;
}

} // namespace

void addOptimizerOps(Ir &ir) {
  Graph &g = ir.getMainGraph();
  int n = 0;
  for (Tensor *w : g.getTensors().getOfType(TensorType::Variable)) {
    if (isReserved(w->id)) continue;
    TensorId grad = reservedGradientPrefix() + w->id;
    if (!g.getTensors().contains(grad)) continue;
    addVarUpdate(ir, w, grad);
    ++n;
  }
  if (n == 0) throw error("no trainable weight receives a gradient from the loss '{}'", ir.getFinalLossId());
  refreshOptimizerTensors(ir);
  logging::transform::info("optimizer {}: {} weights updated", ir.getOptimizer()->type_s(), n);
}

void refreshOptimizerTensors(Ir &ir) {
  Graph &g = ir.getMainGraph();
  for (Tensor *t : g.getTensors().getOfType(TensorType::Variable)) {
    if (t->id.rfind(reservedLossScalingPrefix(), 0) == 0) {
      t->setTensorData(filled(t->info, ir.getOptimizer()->getLossScalingVal()));
    } else if (t->id.rfind(hyperPrefix, 0) == 0) {
      auto hv = hyperValues(ir, t->id.substr(hyperPrefix.size()));
      if (static_cast<int64_t>(hv.size()) != t->info.nelms())
        throw error("optimizer hyper-parameters of '{}' changed in number; recompile the session", t->id);
      t->setTensorData(hv.data(), t->info.nbytes());
    }
  }
}

} // namespace popart
