// Reverse-mode differentiation of a graph. Ops are visited in reverse
// schedule order, so every consumer of a tensor has contributed its partial
// gradient before the tensor's producer needs the sum. The main graph is
// differentiated in place from the loss; a sub-graph F into a new backward
// graph B (autodiff/backward_graph.hpp) whose inputs carry the gradients of
// F's outputs and the F values the grad ops read.
#include "autodiff.hpp"
#include "autodiff/backward_graph.hpp"
#include "ops/controlflow.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include "prune.hpp"
#include <set>

namespace popart {
namespace {

bool differentiable(const Tensor *t) { return isFloatingPoint(t->info.dataType()); }

// Tensors whose value depends on one of `wrt` (and are float).
std::set<const Tensor *> tensorsNeedingGrad(const std::vector<Op *> &schedule, const std::vector<Tensor *> &wrt) {
  std::set<const Tensor *> need;
  for (Tensor *t : wrt)
    if (differentiable(t)) need.insert(t);
  for (Op *op : schedule) {
    bool any = false;
    for (const auto &[i, t] : op->input->tensorMap()) any = any || need.count(t);
    if (!any || op->opid.type == "Detach") continue;
    for (const auto &[i, t] : op->output->tensorMap())
      if (differentiable(t)) need.insert(t);
  }
  return need;
}

// Differentiates graph `fwd` w.r.t. `wrt`, adding the grad ops to `bwd`
// (`fwd` itself for the main graph). Gradients start from seed().
class Autodiff {
public:
  Autodiff(Graph &fwd, Graph &bwd, const std::vector<Tensor *> &wrt, BackwardGraphs &graphs)
      : ir_(fwd.getIr()), fwd_(fwd), bwd_(bwd), graphs_(graphs), schedule_(fwd.getOpSchedule()),
        need_(tensorsNeedingGrad(schedule_, wrt)) {}
  bool needs(const Tensor *t) const { return need_.count(t) != 0; }
  /// `grad` (a tensor of bwd) is a partial gradient of `t`; `final` when it is the whole gradient.
  void seed(const Tensor *t, const TensorId &grad, bool final);
  void run();
  TensorId gradOf(const Tensor *t);  // sums partials; "" when none
  TensorId zerosLike(const Tensor *t);
  /// F tensors the backward graph reads, in the order they became its inputs.
  const std::vector<TensorId> &activations() const { return acts_; }

private:
  TensorId valueInBwd(const Tensor *t);
  void differentiate(Op *op);
  void connectGradOp(Op *fwd, Op *gradOp);

  Ir &ir_;
  Graph &fwd_, &bwd_;
  BackwardGraphs &graphs_;
  std::vector<Op *> schedule_;
  std::set<const Tensor *> need_;
  std::map<const Tensor *, std::vector<TensorId>> partials_;
  std::map<const Tensor *, TensorId> final_;
  std::map<const Tensor *, TensorId> inBwd_;
  std::vector<TensorId> acts_;
  int counter_ = 0;
};

void Autodiff::seed(const Tensor *t, const TensorId &grad, bool final) {
  partials_[t].push_back(grad);
  if (final) final_[t] = grad;
}

TensorId Autodiff::zerosLike(const Tensor *t) {
  TensorId id = ir_.createIntermediateTensorId("zeros_" + t->id);
  std::vector<char> zeros(static_cast<size_t>(t->info.nbytes()), 0);
  bwd_.getTensors().addConstInit(id, t->info, zeros.data());
  return id;
}

// A forward value as seen by the grad ops: in a backward graph, constants
// are copied and anything else becomes an input (an activation).
TensorId Autodiff::valueInBwd(const Tensor *t) {
  if (&fwd_ == &bwd_) return t->id;
  auto it = inBwd_.find(t);
  if (it != inBwd_.end()) return it->second;
  if (t->tensorType() == TensorType::Const && t->hasTensorData()) {
    bwd_.getTensors().addConstInit(t->id, t->info, t->tensorData().data());
  } else {
    bwd_.addInput(t->id, t->info);
    acts_.push_back(t->id);
  }
  return inBwd_[t] = t->id;
}

TensorId Autodiff::gradOf(const Tensor *t) {
  auto done = final_.find(t);
  if (done != final_.end()) return done->second;
  auto it = partials_.find(t);
  if (it == partials_.end() || it->second.empty()) return "";
  TensorId name = reservedGradientPrefix() + t->id;
  if (it->second.size() == 1) {
    bwd_.renameTensor(it->second[0], name);
  } else {
    std::map<InIndex, TensorId> ins;
    for (size_t i = 0; i < it->second.size(); ++i) ins[static_cast<InIndex>(i)] = it->second[i];
    // An ai.onnx Sum named GradSum_<tensor>, as PopART adds gradient sums.
    bwd_.createConnectedOp(onnxOp("Sum", {8}), ins, {{0, name}}, Attributes(), "GradSum_" + t->id);
  }
  return final_[t] = name;
}

void Autodiff::connectGradOp(Op *fwd, Op *gradOp) {
  std::map<InIndex, TensorId> ins;
  for (const auto &m : gradOp->gradInputInfo()) {
    switch (m.type) {
    case GradOpInType::In: ins[m.iGrad] = valueInBwd(fwd->inTensor(m.iNonGrad)); break;
    case GradOpInType::Out: ins[m.iGrad] = valueInBwd(fwd->outTensor(m.iNonGrad)); break;
    case GradOpInType::GradOut: {
      const Tensor *out = fwd->outTensor(m.iNonGrad);
      TensorId gid = gradOf(out);
      ins[m.iGrad] = gid.empty() ? zerosLike(out) : gid;
      break;
    }
    }
  }
  std::map<OutIndex, TensorId> outs;
  for (const auto &[gOut, fwdIn] : gradOp->gradOutToNonGradIn()) {
    const Tensor *x = fwd->inTensor(fwdIn);
    TensorId id = reservedGradientPrefix() + x->id + "__partial" + std::to_string(counter_++);
    outs[gOut] = id;
    if (need_.count(x)) partials_[x].push_back(id);
  }
  bwd_.connectAndSetup(gradOp, ins, outs);
}

void Autodiff::differentiate(Op *op) {
  bool gradIn = false, wantOut = false;
  for (const auto &[i, t] : op->output->tensorMap()) gradIn = gradIn || partials_.count(t) || final_.count(t);
  for (const auto &[i, t] : op->input->tensorMap()) wantOut = wantOut || need_.count(t);
  if (!gradIn || !wantOut) return;
  std::vector<std::unique_ptr<Op>> gradOps;
  withOpContext(*op, "differentiating", [&] {
    auto *sop = dynamic_cast<SubgraphOp *>(op);
    gradOps = sop ? subgraphGradOps(*sop, graphs_) : op->getGradOps();
  });
  for (auto &gop : gradOps) {
    gop->settings.graph = &bwd_;
    Op *raw = bwd_.moveIntoGraph(std::move(gop));
    withOpContext(*op, "connecting the gradient of", [&] { connectGradOp(op, raw); });
  }
}

void Autodiff::run() {
  for (auto it = schedule_.rbegin(); it != schedule_.rend(); ++it) differentiate(*it);
}

} // namespace

BackwardGraph BackwardGraphs::create(Graph &fwd) {
  std::vector<int> ins(fwd.getInputIds().size()), outs(fwd.getOutputIds().size());
  for (size_t i = 0; i < ins.size(); ++i) ins[i] = static_cast<int>(i);
  for (size_t k = 0; k < outs.size(); ++k) outs[k] = static_cast<int>(k);
  return create(fwd, ins, outs);
}

BackwardGraph BackwardGraphs::create(Graph &fwd, const std::vector<int> &wrtInputs,
                                     const std::vector<int> &seedOutputs) {
  Ir &ir = fwd.getIr();
  BackwardGraph b;
  b.graph = &ir.createGraph(ir.createIntermediateTensorId(fwd.id + "/grad"));
  Graph &bwd = *b.graph;
  std::vector<Tensor *> wrt;
  for (int i : wrtInputs) wrt.push_back(fwd.getTensor(fwd.getInputId(i)));
  Autodiff ad(fwd, bwd, wrt, *this);
  for (int k : seedOutputs) {
    const Tensor *y = fwd.getTensor(fwd.getOutputId(k));
    if (!differentiable(y)) continue;
    TensorId seed = reservedGradientPrefix() + y->id + "__out" + std::to_string(k);
    bwd.addInput(seed, y->info);
    if (ad.needs(y)) ad.seed(y, seed, false);
    b.outGrads.push_back(k);
  }
  ad.run();
  for (size_t i = 0; i < wrt.size(); ++i) {
    if (!differentiable(wrt[i])) continue;
    TensorId g = ad.gradOf(wrt[i]);
    bwd.markAsOutput(g.empty() ? ad.zerosLike(wrt[i]) : g);
    b.inGrads.push_back(wrtInputs[i]);
  }
  b.acts = ad.activations();
  prune(bwd);  // grad ops reaching no output (the gradient of a Mul operand cast from an int, ...)
  logging::transform::debug("autodiff: backward graph '{}' of '{}' has {} ops, reads {} activations", bwd.id,
                            fwd.id, bwd.getOps().size(), b.acts.size());
  return b;
}

const BackwardGraph &BackwardGraphs::shared(Graph &fwd) {
  auto it = shared_.find(&fwd);
  if (it != shared_.end()) return it->second;
  BackwardGraph b = create(fwd);
  return shared_[&fwd] = std::move(b);
}

namespace {

/// Main-graph tensors that are not weights and whose gradient is anchored
/// (reservedGradientPrefix() + id): model inputs and activations alike.
std::vector<Tensor *> anchoredGradientInputs(Ir &ir) {
  std::vector<Tensor *> ts;
  const std::string prefix = reservedGradientPrefix();
  Graph &g = ir.getMainGraph();
  for (const auto &a : ir.getDataFlow().anchors()) {
    if (a.rfind(prefix, 0) != 0) continue;
    TensorId id = a.substr(prefix.size());
    if (!g.getTensors().contains(id)) continue;
    Tensor *t = g.getTensor(id);
    if (t->tensorType() != TensorType::Variable && differentiable(t)) ts.push_back(t);
  }
  return ts;
}

} // namespace

void autodiff(Ir &ir) {
  Graph &g = ir.getMainGraph();
  const TensorId &lossId = ir.getFinalLossId();
  if (lossId.empty()) throw error("training needs a loss tensor id");
  if (!g.getTensors().contains(lossId))
    throw error("the loss '{}' is not a tensor of the model", lossId);
  Tensor *loss = g.getTensor(lossId);
  if (loss->info.nelms() != 1)
    throw error("the loss '{}' must be a scalar, but it has shape {}; reduce it (e.g. reduction=Mean/Sum)",
                lossId, loss->info.shapeString());
  if (!differentiable(loss)) throw error("the loss '{}' has type {}, expected a float type", lossId, loss->info.data_type());
  std::vector<Tensor *> weights = g.getTensors().getOfType(TensorType::Variable);
  std::vector<Tensor *> wrt = weights;
  for (Tensor *in : anchoredGradientInputs(ir)) wrt.push_back(in);
  BackwardGraphs graphs;
  Autodiff ad(g, g, wrt, graphs);
  if (!ad.needs(loss)) {
    // PopART allows it: there is nothing to update and no gradient to return.
    logging::transform::warn("the loss '{}' depends on no trainable weight: the training step updates nothing",
                             lossId);
    return;
  }

  // The loss gradient is the loss-scaling factor, a tensor the optimizer can update.
  TensorId seed = reservedLossScalingPrefix() + loss->info.data_type();
  std::vector<char> bytes(static_cast<size_t>(loss->info.nbytes()));
  g.getTensors().addVarInit(seed, loss->info, bytes.data());
  ad.seed(loss, seed, true);
  ad.run();
  for (Tensor *w : wrt)
    if (ad.needs(w)) ad.gradOf(w);
  logging::transform::info("autodiff: {} ops in the training graph", g.getOps().size());
}

} // namespace popart
