#include "constfold.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

ConstEvaluator &constEvaluator() {
  static ConstEvaluator e;
  return e;
}

bool foldable(const Op &op) {
  if (op.input->n() == 0 || op.requiresRandomSeed() || op.hasSideEffect() || op.isLossOp()) return false;
  for (const auto &[i, t] : op.input->tensorMap())
    if (!op.readsOnlyInputInfo() && (t->tensorType() != TensorType::Const || !t->hasTensorData())) return false;
  for (const auto &[i, t] : op.output->tensorMap())
    if (t->isGraphOutput()) return false;
  return constEvaluator().canEvaluate && constEvaluator().canEvaluate(op.opid);
}

// Replaces ActGrad tensor `id` by a Const with `bytes`, keeping its consumers.
void replaceByConst(Graph &g, const TensorId &id, const TensorInfo &info, const std::vector<char> &bytes) {
  Tensor *old = g.getTensor(id);
  std::vector<std::pair<Op *, std::vector<int>>> uses;
  for (Op *c : old->consumers.getOps()) uses.emplace_back(c, c->input->indices(old));
  for (auto &[c, idx] : uses)
    for (int i : idx) c->disconnectInTensor(i);
  g.getTensors().remove(id);
  g.getTensors().addConstInit(id, info, bytes.data());
  for (auto &[c, idx] : uses)
    for (int i : idx) c->connectInTensor(i, id);
}

} // namespace

void registerConstEvaluator(ConstEvaluator evaluator) { constEvaluator() = std::move(evaluator); }

bool foldIfConstant(Op &op) {
  if (!foldable(op)) return false;
  std::map<OutIndex, std::vector<char>> outs;
  withOpContext(op, "constant folding", [&] { outs = constEvaluator().evaluate(op); });
  Graph &g = op.getGraph();
  std::map<OutIndex, std::pair<TensorId, TensorInfo>> ids;
  for (const auto &[i, t] : op.output->tensorMap()) ids[i] = {t->id, t->info};
  logging::ces::debug("folded {}", op.debugName());
  g.eraseOp(op.id);
  for (const auto &[i, idInfo] : ids) replaceByConst(g, idInfo.first, idInfo.second, outs.at(i));
  return true;
}

bool foldConstants(Graph &g) {
  bool changed = false;
  for (Op *op : g.getOpSchedule()) changed |= foldIfConstant(*op);
  return changed;
}

} // namespace popart
