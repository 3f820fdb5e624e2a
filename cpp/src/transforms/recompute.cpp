// Which forward ops are recomputed:
// - an op marked RecomputeType::Recompute (Builder.recomputeOutputInBackwardPass)
//   always is, one marked Checkpoint never is;
// - RecomputationType::RecomputeAll: every other forward op;
// - NormOnly: the normalisation ops;
// - Standard: everything except the expensive ops (MatMul, Gemm, Conv,
//   ConvTranspose, pooling, RNNs, sub-graph ops), whose outputs are the
//   checkpoints the recomputed segments start from.
// Ops that modify a tensor, have side effects or draw new random numbers are
// never recomputed (Dropout is: its mask is regenerated from its seed name).
// A recomputed op is cloned as the grad ops need it; the clone's inputs are
// the checkpoints or other clones. Clones get the lowest schedule priority,
// so they run as late as possible, just before their consumers: the original
// activations die at the end of the forward pass.
#include "recompute.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/op.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include <map>

namespace popart {
namespace {

constexpr float kRecomputePriority = -1e9f;

bool isExpensive(const std::string &type) {
  static const std::set<std::string> heavy{"MatMul", "Gemm", "Conv", "ConvTranspose", "MultiConv",
                                           "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                                           "LpPool", "LSTM", "GRU", "RNN", "Call", "If", "Loop", "Scan",
                                           "PackedDataBlock", "Einsum"};
  return heavy.count(type) > 0;
}

bool isNorm(const std::string &type) {
  static const std::set<std::string> norms{"BatchNormalization", "GroupNormalization", "LayerNormalization",
                                           "InstanceNormalization", "LpNormalization", "LRN",
                                           "MeanVarianceNormalization"};
  return norms.count(type) > 0;
}

bool canRecompute(const Op &op) {
  if (op.hasSideEffect() || op.isLossOp()) return false;
  if (op.requiresRandomSeed() && !op.attributes().hasAttribute("seedName")) return false;
  for (const auto &[i, t] : op.input->tensorMap())
    if (op.modifies(i)) return false;
  return true;
}

bool chosen(const Op &op, RecomputationType mode) {
  if (op.settings.recomputeType == RecomputeType::Checkpoint || !canRecompute(op)) return false;
  if (op.settings.recomputeType == RecomputeType::Recompute) return true;
  switch (mode) {
  case RecomputationType::RecomputeAll: return true;
  case RecomputationType::NormOnly: return isNorm(op.opid.type);
  case RecomputationType::Standard: return !isExpensive(op.opid.type);
  default: return false;
  }
}

class Recompute {
public:
  Recompute(Ir &ir, std::set<OpId> chosenOps) : ir_(ir), g_(ir.getMainGraph()), chosen_(std::move(chosenOps)) {}

  /// The recomputed copy of `t` when its producer is recomputed, else `t`.
  TensorId recomputed(Tensor *t) {
    Op *p = t->getProducerUnsafe();
    if (!p || !chosen_.count(p->id)) return t->id;
    auto it = copies_.find(t->id);
    if (it != copies_.end()) return it->second;
    cloneOp(p);
    return copies_.at(t->id);
  }

  size_t numClones() const { return clones_; }

private:
  void cloneOp(Op *p) {
    std::map<InIndex, TensorId> ins;
    for (const auto &[i, t] : p->input->tensorMap()) ins[i] = recomputed(t);
    std::map<OutIndex, TensorId> outs;
    for (const auto &[i, t] : p->output->tensorMap())
      outs[i] = copies_[t->id] = ir_.createIntermediateTensorId(t->id + "__recomputed");
    auto copy = p->clone();
    copy->settings.recomputeType = RecomputeType::Recomputed;
    // Lowest priority: scheduled only when nothing else can run, i.e. just
    // before the grad op waiting for it (ids cannot express this: in-placing
    // later replaces forward ops by newer ones).
    copy->settings.schedulePriority = kRecomputePriority;
    copy->settings.name = (p->name().empty() ? p->opid.type + "_" + std::to_string(p->id) : p->name()) + "__recomputed";
    Op *raw = g_.moveIntoGraph(std::move(copy));
    g_.connectAndSetup(raw, ins, outs);
    ++clones_;
  }

  Ir &ir_;
  Graph &g_;
  std::set<OpId> chosen_;
  std::map<TensorId, TensorId> copies_;
  size_t clones_ = 0;
};

} // namespace

void recompute(Ir &ir, const std::set<OpId> &forward) {
  Graph &g = ir.getMainGraph();
  const RecomputationType mode = ir.getSessionOptions().autoRecomputation;
  std::set<OpId> picked;
  for (OpId id : forward)
    if (g.getOps().count(id) && chosen(*g.getOps().at(id), mode)) picked.insert(id);
  if (picked.empty()) return;
  Recompute rc(ir, picked);
  std::vector<Op *> backward;
  for (const auto &[id, op] : g.getOps())
    if (!forward.count(id)) backward.push_back(op.get());
  for (Op *op : backward) {
    for (const auto &[i, t] : std::map<InIndex, Tensor *>(op->input->tensorMap())) {
      TensorId r = rc.recomputed(t);
      if (r == t->id) continue;
      op->disconnectInTensor(i);
      op->connectInTensor(i, r);
    }
  }
  logging::transform::info("recompute: {} forward ops chosen, {} copies added to the backward pass",
                           picked.size(), rc.numClones());
}

} // namespace popart
