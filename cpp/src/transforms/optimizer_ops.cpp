// Optimizer lowering: per weight with a gradient, the state Variables, a
// hyper-parameter tensor [gradScale, ...], optional gradient accumulation, one
// ClipNormScale op per clip-norm group and one fused OptimizerVarUpdate op,
// ordered after every op that reads the weight.
#include "autodiff.hpp"
#include "order_modifiers.hpp"
#include "popart/adam.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/half.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/optimizer.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "popart/tensorlocation.hpp"
#include "popart/variablesettings.hpp"
#include <cstring>
#include <tuple>

namespace popart {
namespace {

const std::string hyperPrefix = "OptimizerHyper___";
const std::string clipPrefix = "ClipNormScale___";

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

// Micro-batches whose gradients one replica accumulates before an update.
int64_t microBatchesPerUpdate(const Ir &ir) { return ir.getSessionOptions().getAccumulationFactor(); }

// Replicas (over all processes) whose gradients one update combines.
int64_t replicasPerUpdate(const Ir &ir) { return ir.getSessionOptions().getGlobalReplicationFactor(); }

// How the replicas share each weight: by default all of them hold one value
// and combine their gradients; a weight with VariableSettings has one value
// per group, and a group combines the gradients of its replicas only.
struct Sharing {
  CommGroup group;       // the replicas one update combines
  int64_t replicas = 1;  // how many they are
};

std::map<TensorId, Sharing> weightSharing(const Ir &ir) {
  std::map<TensorId, Sharing> out;
  const auto n = static_cast<unsigned>(replicasPerUpdate(ir));
  for (const auto &[id, vs] : nonDefaultVariableSettings(ir))
    out[id] = Sharing{vs.toCommGroup(n, id), vs.getRealGroupSize(n)};
  return out;
}

Sharing sharingOf(const Ir &ir, const std::map<TensorId, Sharing> &sharing, const TensorId &w) {
  auto it = sharing.find(w);
  return it == sharing.end() ? Sharing{CommGroup(), replicasPerUpdate(ir)} : it->second;
}

bool runningMean(const Ir &ir) {
  const auto &o = ir.getSessionOptions();
  return o.accumulationAndReplicationReductionType == ReductionType::Mean &&
         o.meanAccumulationAndReplicationReductionStrategy == MeanReductionStrategy::Running;
}

// Un-scales the loss scaling; Mean with the Post strategy divides the summed
// gradients here (Running keeps a mean in the accumulator instead).
float gradScale(const Ir &ir, int64_t replicas) {
  const auto &o = ir.getSessionOptions();
  float s = 1.0f / ir.getOptimizer()->getLossScalingVal();
  if (o.accumulationAndReplicationReductionType == ReductionType::Mean && !runningMean(ir))
    s /= static_cast<float>(microBatchesPerUpdate(ir) * replicas);
  return s;
}

std::vector<float> hyperValues(const Ir &ir, const TensorId &w, const Sharing &sharing) {
  std::vector<float> v{gradScale(ir, sharing.replicas)};
  for (float x : ir.getOptimizer()->varUpdate(w).hyperValues) v.push_back(x);
  return v;
}

// One weight's update before its op exists: inputs w, gradient (or
// accumulator), hyper, state...
struct WeightUpdate {
  Tensor *w;
  VarUpdateSpec spec;
  std::map<InIndex, TensorId> ins;
  bool accumulated = false;
  Sharing sharing;
  int64_t stateShards = 1;  // replicas the optimizer state is split over (replicated tensor sharding)
};

// optimizerStateTensorLocationSettings with replicatedTensorSharding: the state
// of a weight that all replicas share, with at least
// minElementsForReplicatedTensorSharding elements, is split into one shard per
// replica; each replica updates its shard of the weight and the replicas
// all-gather the weight. Lamb (which needs whole-tensor norms) keeps whole state.
int64_t stateShards(const Ir &ir, const Tensor *w, const VarUpdateSpec &spec, const Sharing &sharing) {
  const auto &o = ir.getSessionOptions();
  const auto &tls = o.optimizerStateTensorLocationSettings;
  const int64_t R = replicasPerUpdate(ir);
  if (tls.location.replicatedTensorSharding != ReplicatedTensorSharding::On || R < 2 || o.hostAllReduce) return 1;
  if (sharing.group != CommGroup() || w->info.nelms() < std::max(tls.minElementsForReplicatedTensorSharding, 1))
    return 1;
  auto mode = spec.modes.find("mode");
  if (spec.algorithm == "Adam" && mode != spec.modes.end() &&
      (mode->second == static_cast<int64_t>(AdamMode::Lamb) || mode->second == static_cast<int64_t>(AdamMode::LambNoBias)))
    return 1;
  return R;
}

// The gradient accumulation of `grad` into a FLOAT accumulator `acc` can be the product that makes it: a
// MatMulRhsGrad read by nothing else, summed (not a running mean).
bool fuseAccumulation(const Ir &ir, const Tensor *grad, const TensorInfo &acc) {
  if (runningMean(ir) || acc.dataType() != DataType::FLOAT || grad->info != acc || !grad->hasProducer() ||
      !grad->consumers.getOps().empty() || ir.getDataFlow().isAnchored(grad->id))
    return false;
  const Op *p = grad->getProducer();
  return p->opid == internalOp("MatMulRhsGrad") && p->output->n() == 1;
}

// An op working on a gradient runs where the gradient is made (its pipeline
// stage and virtual graph), as PopART places accumulation ops.
void placeWithGradient(Op *op, const Tensor *grad) {
  if (!grad->hasProducer()) return;
  op->settings.vgraphId = grad->getProducer()->settings.vgraphId;
  op->settings.pipelineStage = grad->getProducer()->settings.pipelineStage;
}

// Accum___w += g (g cast to the accumulator's type first when they differ).
TensorId addAccumulator(Ir &ir, Tensor *w, const TensorId &grad, DataType type) {
  Graph &g = ir.getMainGraph();
  TensorInfo info(type == DataType::UNDEFINED ? w->info.dataType() : type, w->info.shape());
  TensorId acc = reservedAccumPrefix() + w->id, in = grad;
  g.getTensors().addVarInit(acc, info, filled(info, 0).data());
  if (info.dataType() != g.getTensor(grad)->info.dataType()) {
    in = ir.createIntermediateTensorId(grad + "_as_" + toLowerString(info.dataType()));
    Attributes to;
    to.setAttribute("to", Attributes::Int(onnxDataType(info.dataType())));
    placeWithGradient(g.createConnectedOp(onnxOp("Cast", {13}), {{0, grad}}, {{0, in}}, to, "CastGradient_" + w->id),
                      g.getTensor(grad));
  }
  if (fuseAccumulation(ir, g.getTensor(in), info)) {
    // acc += A^T dY in the weight-gradient product itself, where the gradient was computed.
    Op *rhs = g.getTensor(in)->getProducer();
    const std::map<InIndex, TensorId> ins{{0, rhs->inTensor(0)->id}, {1, rhs->inTensor(1)->id}, {2, acc}};
    const Op::Settings settings = rhs->settings;
    g.eraseOp(rhs->id);
    g.getTensors().remove(in);
    Op *fused = g.createConnectedOp(internalOp("MatMulRhsGradAccumulate"), ins, {{0, acc + "__accumulated"}}, {},
                                    "GradAccumulate_" + w->id);
    const std::string name = fused->settings.name;
    fused->settings = settings;  // its stage, virtual graph and context
    fused->settings.name = name;
    return acc;
  }
  Attributes attrs;
  if (runningMean(ir)) attrs.setAttribute("runningMeanOver", Attributes::Int(microBatchesPerUpdate(ir)));
  placeWithGradient(g.createConnectedOp(internalOp("GradAccumulate"), {{0, acc}, {1, in}}, {{0, acc + "__accumulated"}},
                                        attrs, "GradAccumulate_" + w->id),
                    g.getTensor(in));
  return acc;
}

// The gradient (or accumulator, in place: the var-update zeroes it after) summed
// over all replicas, or averaged for the Running mean strategy (each
// accumulator then holds a mean already).
TensorId addReplicaReduction(Ir &ir, const WeightUpdate &u) {
  Graph &g = ir.getMainGraph();
  const TensorId in = u.ins.at(1), out = in + "__allReduced";
  Attributes attrs;
  attrs.setAttribute("__collectiveOperator", Attributes::Int(runningMean(ir) ? 1 : 0));  // Mean : Add
  // hostAllReduce: then the mean over the host processes (Horovod's DistributedOptimizer attaches them).
  if (ir.getSessionOptions().hostAllReduce) attrs.setAttribute("hostAllReduce", Attributes::Int(1));
  const CommGroup &group = u.sharing.group;
  if (group != CommGroup())
    attrs.setAttribute("__collectiveCommGroup",
                       Attributes::Ints{static_cast<int64_t>(group.type), static_cast<int64_t>(group.replicaGroupSize)});
  Op *op = g.createConnectedOp(graphcoreOp(u.accumulated ? "ReplicatedAllReduceInplace" : "ReplicatedAllReduce"),
                               {{0, in}}, {{0, out}}, attrs, "GradReduce_" + u.w->id);
  if (u.accumulated) op->settings.executionContext = ExecutionContext::AccumulateOuterFragment;
  op->settings.optimizerOp = true;
  return out;
}

WeightUpdate prepareWeight(Ir &ir, Tensor *w, const TensorId &grad, const Sharing &sharing) {
  Graph &g = ir.getMainGraph();
  WeightUpdate u{w, ir.getOptimizer()->varUpdate(w->id), {}, false, sharing};
  u.stateShards = stateShards(ir, w, u.spec, sharing);
  const int64_t shard = (w->info.nelms() + u.stateShards - 1) / u.stateShards;
  if (sharing.group != CommGroup() && ir.getSessionOptions().hostAllReduce)
    throw error("weight '{}' has one value per group of replicas, but hostAllReduce averages its gradient over "
                "all processes; use the default VariableSettings with hostAllReduce", w->id);
  auto hv = hyperValues(ir, w->id, sharing);
  g.getTensors().addVarInit(hyperPrefix + w->id, TensorInfo(DataType::FLOAT, {static_cast<int64_t>(hv.size())}), hv.data());
  u.ins = {{0, w->id}, {1, grad}, {2, hyperPrefix + w->id}};
  InIndex next = 3;
  for (const auto &st : u.spec.state) {
    TensorInfo info(st.type == DataType::UNDEFINED ? w->info.dataType() : st.type,
                    st.scalar ? Shape{} : u.stateShards > 1 ? Shape{shard} : w->info.shape());
    auto saved = ir.savedOptimizerState().find(st.name);
    // A saved state holds one value, or one per group of replicas for a weight with VariableSettings.
    // Sharded state: one shard per replica on the host (a saved whole state is split into them).
    const size_t one = size_t(info.nbytes()), slots = sharing.group != CommGroup()
                                                          ? size_t(replicasPerUpdate(ir) / sharing.replicas)
                                                          : !st.scalar && u.stateShards > 1 ? size_t(u.stateShards) : 1;
    std::vector<char> savedBytes;
    if (saved != ir.savedOptimizerState().end()) {
      savedBytes = saved->second;
      const size_t whole = size_t(TensorInfo(info.dataType(), w->info.shape()).nbytes());
      if (!st.scalar && u.stateShards > 1 && savedBytes.size() == whole) savedBytes.resize(one * slots, 0);
    }
    const bool resume = !savedBytes.empty() && (savedBytes.size() == one || savedBytes.size() == one * slots);
    g.getTensors().addVarInit(st.name, info, resume ? savedBytes.data() : filled(info, st.init).data());
    if (resume && savedBytes.size() != one) g.getTensor(st.name)->setTensorData(savedBytes);
    u.ins[next++] = st.name;
  }
  if (microBatchesPerUpdate(ir) > 1) {
    u.ins[1] = addAccumulator(ir, w, grad, u.spec.accumType);
    u.accumulated = true;
  }
  return u;
}

bool needsReduction(const Ir &ir, const WeightUpdate &u) {
  return u.sharing.replicas > 1 || ir.getSessionOptions().hostAllReduce;
}

// mergeAllReduceCollectives, or replicas in several processes (one exchange
// per collective): the gradient reductions with the same group, type and
// context become one fused all-reduce.
bool fuseReductions(const Ir &ir) {
  const auto &o = ir.getSessionOptions();
  return o.replicatedCollectivesSettings.mergeAllReduceCollectives || o.enableDistributedReplicatedGraphs;
}

void addFusedReductions(Ir &ir, std::vector<WeightUpdate> &ups) {
  Graph &g = ir.getMainGraph();
  using Key = std::tuple<int64_t, int64_t, bool, DataType>;
  std::map<Key, std::vector<WeightUpdate *>> buckets;
  for (auto &u : ups)
    if (needsReduction(ir, u))
      buckets[{static_cast<int64_t>(u.sharing.group.type), static_cast<int64_t>(u.sharing.group.replicaGroupSize),
               u.accumulated, g.getTensor(u.ins.at(1))->info.dataType()}]
          .push_back(&u);
  for (auto &[key, members] : buckets) {
    const WeightUpdate &first = *members.front();
    Attributes attrs;
    attrs.setAttribute("__collectiveOperator", Attributes::Int(runningMean(ir) ? 1 : 0));  // Mean : Add
    if (ir.getSessionOptions().hostAllReduce) attrs.setAttribute("hostAllReduce", Attributes::Int(1));
    if (first.sharing.group != CommGroup())
      attrs.setAttribute("__collectiveCommGroup", Attributes::Ints{std::get<0>(key), std::get<1>(key)});
    std::map<InIndex, TensorId> ins;
    std::map<OutIndex, TensorId> outs;
    for (size_t i = 0; i < members.size(); ++i) {
      const TensorId in = members[i]->ins.at(1);
      ins[static_cast<InIndex>(i)] = in;
      outs[static_cast<OutIndex>(i)] = in + "__allReduced";
      members[i]->ins[1] = in + "__allReduced";
    }
    Op *op = g.createConnectedOp(internalOp(first.accumulated ? "ReplicatedAllReduceFusedInplace"
                                                              : "ReplicatedAllReduceFused"),
                                 ins, outs, attrs, "GradReduceFused_" + std::to_string(ins.size()) + "_" +
                                                       first.w->id);
    if (first.accumulated) op->settings.executionContext = ExecutionContext::AccumulateOuterFragment;
    op->settings.optimizerOp = true;
  }
}

void addReductions(Ir &ir, std::vector<WeightUpdate> &ups) {
  if (fuseReductions(ir)) return addFusedReductions(ir, ups);
  for (auto &u : ups)
    if (needsReduction(ir, u)) u.ins[1] = addReplicaReduction(ir, u);
}

// One ClipNormScale op per clip-norm group; returns weight id -> scale tensor.
std::map<TensorId, TensorId> addClipNorms(Ir &ir, const std::vector<WeightUpdate> &ups) {
  Graph &g = ir.getMainGraph();
  std::map<TensorId, const WeightUpdate *> byId;
  for (const auto &u : ups) byId[u.w->id] = &u;
  std::map<TensorId, TensorId> scaleOf;
  const auto &groups = ir.getOptimizer()->getClipNormSettings();
  for (size_t k = 0; k < groups.size(); ++k) {
    std::vector<TensorId> ids = groups[k].weightIds;
    if (groups[k].clipAll())
      for (const auto &u : ups) ids.push_back(u.w->id);
    std::map<InIndex, TensorId> ins;
    TensorId scale = clipPrefix + std::to_string(k);
    for (const auto &id : ids) {
      auto it = byId.find(id);
      if (it == byId.end())
        throw error("clip-norm group {} names '{}', which is not a trained weight (no gradient reaches it)", k, id);
      if (!scaleOf.emplace(id, scale).second) throw error("weight '{}' is in more than one clip-norm group", id);
      if (ins.empty()) ins[0] = it->second->ins.at(2);
      ins[static_cast<InIndex>(ins.size())] = it->second->ins.at(1);
    }
    Attributes attrs;
    attrs.setAttribute("maxNorm", Attributes::Float(groups[k].maxNorm));
    Op *op = g.createConnectedOp(internalOp("ClipNormScale"), ins, {{0, scale}}, attrs, "ClipNorm_" + std::to_string(k));
    if (microBatchesPerUpdate(ir) > 1)
      op->settings.executionContext = ExecutionContext::AccumulateOuterFragment;
    op->settings.optimizerOp = true;
  }
  return scaleOf;
}

void addVarUpdateOp(Ir &ir, WeightUpdate &u, const TensorId &clipScale) {
  Graph &g = ir.getMainGraph();
  Attributes attrs;
  attrs.setAttribute("algorithm", u.spec.algorithm);
  for (const auto &[k, v] : u.spec.modes) attrs.setAttribute(k, v);
  if (u.accumulated) attrs.setAttribute("zeroGradient", Attributes::Int(1));
  if (u.stateShards > 1) attrs.setAttribute("stateShards", Attributes::Int(u.stateShards));
  if (!clipScale.empty()) {  // read by the kernels as the last input
    attrs.setAttribute("clipNorm", Attributes::Int(1));
    u.ins[static_cast<InIndex>(u.ins.size())] = clipScale;
  }
  Op *op = g.createConnectedOp(internalOp("OptimizerVarUpdate"), u.ins, {{0, reservedUpdatedVarPrefix() + u.w->id}},
                               attrs, "VarUpdate_" + u.w->id);
  if (u.accumulated) op->settings.executionContext = ExecutionContext::AccumulateOuterFragment;
  op->settings.optimizerOp = true;
  orderAfterReaders(g, u.w, op);
}

} // namespace

void addOptimizerOps(Ir &ir) {
  Graph &g = ir.getMainGraph();
  std::vector<WeightUpdate> ups;
  const auto sharing = weightSharing(ir);
  for (Tensor *w : g.getTensors().getOfType(TensorType::Variable)) {
    if (isReserved(w->id)) continue;
    TensorId grad = reservedGradientPrefix() + w->id;
    if (g.getTensors().contains(grad)) ups.push_back(prepareWeight(ir, w, grad, sharingOf(ir, sharing, w->id)));
  }
  if (ups.empty()) {  // allowed, as in PopART: the step computes the loss (and anchored gradients) only
    logging::transform::warn("no trainable weight receives a gradient from the loss '{}': nothing to update",
                             ir.getFinalLossId());
    refreshOptimizerTensors(ir);
    return;
  }
  addReductions(ir, ups);
  auto clipScales = addClipNorms(ir, ups);
  for (auto &u : ups) {
    auto it = clipScales.find(u.w->id);
    addVarUpdateOp(ir, u, it == clipScales.end() ? TensorId() : it->second);
  }
  refreshOptimizerTensors(ir);
  logging::transform::info("optimizer {}: {} weights updated, {} clip-norm groups", ir.getOptimizer()->type_s(),
                           ups.size(), ir.getOptimizer()->getClipNormSettings().size());
}

void refreshOptimizerTensors(Ir &ir) {
  Graph &g = ir.getMainGraph();
  const auto sharing = weightSharing(ir);
  for (Tensor *t : g.getTensors().getOfType(TensorType::Variable)) {
    if (t->id.rfind(reservedLossScalingPrefix(), 0) == 0) {
      t->setTensorData(filled(t->info, ir.getOptimizer()->getLossScalingVal()));
    } else if (t->id.rfind(hyperPrefix, 0) == 0) {
      const TensorId w = t->id.substr(hyperPrefix.size());
      auto hv = hyperValues(ir, w, sharingOf(ir, sharing, w));
      if (static_cast<int64_t>(hv.size()) != t->info.nelms())
        throw error("optimizer hyper-parameters of '{}' changed in number; recompile the session", t->id);
      t->setTensorData(hv.data(), t->info.nbytes());
    }
  }
}

} // namespace popart
