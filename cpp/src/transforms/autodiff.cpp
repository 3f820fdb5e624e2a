// Reverse-mode differentiation over the main graph. Ops are visited in
// reverse schedule order, so every consumer of a tensor has contributed its
// partial gradient before the tensor's producer needs the sum.
#include "autodiff.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/optimizer.hpp"
#include "popart/tensor.hpp"
#include <set>

namespace popart {
namespace {

bool differentiable(const Tensor *t) { return isFloatingPoint(t->info.dataType()); }

// Tensors whose value depends on a trainable weight (and are float).
std::set<const Tensor *> tensorsNeedingGrad(Graph &g, const std::vector<Op *> &schedule) {
  std::set<const Tensor *> need;
  for (Tensor *t : g.getTensors().getOfType(TensorType::Variable))
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

class Autodiff {
public:
  explicit Autodiff(Ir &ir) : ir_(ir), g_(ir.getMainGraph()) {}
  void run();

private:
  TensorId gradOf(const Tensor *t);  // sums partials; "" when none
  TensorId zerosLike(const Tensor *t);
  void differentiate(Op *op);
  void connectGradOp(Op *fwd, Op *gradOp);

  Ir &ir_;
  Graph &g_;
  std::set<const Tensor *> need_;
  std::map<const Tensor *, std::vector<TensorId>> partials_;
  std::map<const Tensor *, TensorId> final_;
  int counter_ = 0;
};

TensorId Autodiff::zerosLike(const Tensor *t) {
  TensorId id = ir_.createIntermediateTensorId("zeros_" + t->id);
  std::vector<char> zeros(static_cast<size_t>(t->info.nbytes()), 0);
  g_.getTensors().addConstInit(id, t->info, zeros.data());
  return id;
}

TensorId Autodiff::gradOf(const Tensor *t) {
  auto done = final_.find(t);
  if (done != final_.end()) return done->second;
  auto it = partials_.find(t);
  if (it == partials_.end() || it->second.empty()) return "";
  TensorId name = reservedGradientPrefix() + t->id;
  if (it->second.size() == 1) {
    g_.renameTensor(it->second[0], name);
  } else {
    std::map<InIndex, TensorId> ins;
    for (size_t i = 0; i < it->second.size(); ++i) ins[static_cast<InIndex>(i)] = it->second[i];
    g_.createConnectedOp(internalOp("GradSum"), ins, {{0, name}}, Attributes(), "GradSum_" + t->id);
  }
  return final_[t] = name;
}

void Autodiff::connectGradOp(Op *fwd, Op *gradOp) {
  std::map<InIndex, TensorId> ins;
  for (const auto &m : gradOp->gradInputInfo()) {
    switch (m.type) {
    case GradOpInType::In: ins[m.iGrad] = fwd->inId(m.iNonGrad); break;
    case GradOpInType::Out: ins[m.iGrad] = fwd->outId(m.iNonGrad); break;
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
  g_.connectAndSetup(gradOp, ins, outs);
}

void Autodiff::differentiate(Op *op) {
  bool gradIn = false, wantOut = false;
  for (const auto &[i, t] : op->output->tensorMap()) gradIn = gradIn || partials_.count(t) || final_.count(t);
  for (const auto &[i, t] : op->input->tensorMap()) wantOut = wantOut || need_.count(t);
  if (!gradIn || !wantOut) return;
  std::vector<std::unique_ptr<Op>> gradOps;
  withOpContext(*op, "differentiating", [&] { gradOps = op->getGradOps(); });
  for (auto &gop : gradOps) {
    Op *raw = g_.moveIntoGraph(std::move(gop));
    withOpContext(*op, "connecting the gradient of", [&] { connectGradOp(op, raw); });
  }
}

void Autodiff::run() {
  const TensorId &lossId = ir_.getFinalLossId();
  if (lossId.empty()) throw error("training needs a loss tensor id");
  if (!g_.getTensors().contains(lossId))
    throw error("the loss '{}' is not a tensor of the model", lossId);
  Tensor *loss = g_.getTensor(lossId);
  if (loss->info.nelms() != 1)
    throw error("the loss '{}' must be a scalar, but it has shape {}; reduce it (e.g. reduction=Mean/Sum)",
                lossId, loss->info.shapeString());
  if (!differentiable(loss)) throw error("the loss '{}' has type {}, expected a float type", lossId, loss->info.data_type());
  auto schedule = g_.getOpSchedule();
  need_ = tensorsNeedingGrad(g_, schedule);
  if (!need_.count(loss)) throw error("the loss '{}' does not depend on any trainable weight", lossId);

  // The loss gradient is the loss-scaling factor, a tensor the optimizer can update.
  TensorId seed = reservedLossScalingPrefix() + loss->info.data_type();
  std::vector<char> bytes(static_cast<size_t>(loss->info.nbytes()));
  g_.getTensors().addVarInit(seed, loss->info, bytes.data());
  partials_[loss].push_back(seed);
  final_[loss] = seed;

  for (auto it = schedule.rbegin(); it != schedule.rend(); ++it) differentiate(*it);
  for (Tensor *w : g_.getTensors().getOfType(TensorType::Variable))
    if (need_.count(w)) gradOf(w);
  logging::transform::info("autodiff: {} ops in the training graph", g_.getOps().size());
}

} // namespace

void autodiff(Ir &ir) { Autodiff(ir).run(); }

} // namespace popart
