// TrainingLayerNormFusion (training graphs): LayerNorm written as nine ops over the last axis, m = ReduceMean(x),
// c = x - m, v = ReduceMean(c * c), y = c / Sqrt(v + eps) * w + b, becomes one LayerNormalization (axis -1,
// epsilon eps) with scale w and bias b of the last dim's size. Autodiff then builds one
// LayerNormalizationGrad instead of the gradients of nine ops and the sums of c's three uses: a BERT layer's
// two LayerNorms read and write [tokens, 768] ~6 times instead of ~30 per step. Intermediates must be read
// only inside the chain and not be graph outputs or anchors.
#include "pattern_match.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"

namespace popart {
namespace {

using namespace match;

/// Whether `op` is a ReduceMean over the last axis only of `x`, keeping dims.
bool meanOfLastAxis(const Op *op, const Tensor *x) {
  if (!isOnnxOp(op, "ReduceMean") || op->input->n() != 1 || op->inTensor(0) != x) return false;
  const auto axes = op->attr<Attributes::Ints>("axes", {});
  const int64_t r = x->info.rank();
  return op->attr<Attributes::Int>("keepdims", 1) == 1 && axes.size() == 1 && (axes[0] == -1 || axes[0] == r - 1);
}

/// The other input of binary `op` of `type` when one input is `t`, else null.
const Tensor *otherInput(const Op *op, const char *type, const Tensor *t) {
  if (!isOnnxOp(op, type) || op->input->n() != 2 || !op->hasInput(0) || !op->hasInput(1)) return nullptr;
  if (op->inTensor(0) == t) return op->inTensor(1);
  return op->inTensor(1) == t ? op->inTensor(0) : nullptr;
}

/// Whether `p` is a [D] (or [1.., D]) tensor of x's type, D the last dim of x.
bool perFeature(const Tensor *p, const Tensor *x) {
  const Shape &s = p->info.shape();
  if (p->info.dataType() != x->info.dataType() || s.empty() || s.back() != x->info.shape().back()) return false;
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] != 1) return false;
  return s.size() <= static_cast<size_t>(x->info.rank());
}

/// The chain of a LayerNorm whose normalisation is `div` (c / Sqrt(v + eps)).
struct LayerNormChain {
  std::vector<Op *> ops;  // in execution order; the last (the bias Add) produces y
  const Tensor *x = nullptr, *scale = nullptr, *bias = nullptr;
  double eps = 0;
};

LayerNormChain layerNormAt(Op *div) {
  if (!isOnnxOp(div, "Div") || div->input->n() != 2 || !div->hasInput(0) || !div->hasInput(1)) return {};
  Op *sub = div->inTensor(0)->getProducerUnsafe(), *sqrt = div->inTensor(1)->getProducerUnsafe();
  if (!isOnnxOp(sub, "Sub") || !isOnnxOp(sqrt, "Sqrt") || onlyReader(sqrt) != div) return {};
  LayerNormChain f;
  f.x = sub->inTensor(0);
  Op *mean = sub->inTensor(1)->getProducerUnsafe();
  const Tensor *c = sub->outTensor(0);
  if (!meanOfLastAxis(mean, f.x) || onlyReader(mean) != sub || div->outInfo(0) != f.x->info || sub->outInfo(0) != f.x->info)
    return {};
  Op *addEps = sqrt->inTensor(0)->getProducerUnsafe();
  if (!isOnnxOp(addEps, "Add") || onlyReader(addEps) != sqrt) return {};
  const Tensor *var = nullptr;
  for (int k : {0, 1})
    if (!std::isnan(constScalar(addEps->inTensor(k)))) f.eps = constScalar(addEps->inTensor(k)), var = addEps->inTensor(1 - k);
  Op *varMean = var ? var->getProducerUnsafe() : nullptr;
  if (!isOnnxOp(varMean, "ReduceMean") || !varMean->hasInput(0)) return {};
  Op *square = varMean->inTensor(0)->getProducerUnsafe();
  if (!square || !meanOfLastAxis(varMean, square->outTensor(0)) || onlyReader(varMean) != addEps ||
      onlyReader(square) != varMean || !isOnnxOp(square, "Mul") || square->inTensor(0) != c || square->inTensor(1) != c)
    return {};
  // c is read by the square (twice) and the division only
  if (c->consumers.getTotal() != 3 || c->isGraphOutput() || div->getIr().getDataFlow().isAnchored(c->id)) return {};
  Op *mulW = onlyReader(div);
  f.scale = otherInput(mulW, "Mul", div->outTensor(0));
  Op *addB = f.scale ? onlyReader(mulW) : nullptr;
  f.bias = addB ? otherInput(addB, "Add", mulW->outTensor(0)) : nullptr;
  if (!f.bias || !perFeature(f.scale, f.x) || !perFeature(f.bias, f.x) || addB->outInfo(0) != f.x->info) return {};
  f.ops = {mean, sub, square, varMean, addEps, sqrt, div, mulW, addB};
  return f;
}

class TrainingLayerNormFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!isOnnxOp(op, "Div") || !op->getIr().isTraining()) return false;
    auto f = layerNormAt(op);
    return !f.ops.empty() && !constrained(f.ops);
  }

  bool apply(Op *div) const override {
    Graph &g = div->getGraph();
    auto f = layerNormAt(div);
    const TensorId x = f.x->id, scale = f.scale->id, bias = f.bias->id, out = f.ops.back()->outId(0);
    Op::Settings settings = f.ops.back()->settings;
    settings.name = "LayerNorm_" + out;
    Attributes attrs;
    attrs.setAttribute("axis", Attributes::Int(-1));
    attrs.setAttribute("epsilon", Attributes::Float(static_cast<float>(f.eps)));
    std::vector<TensorId> dropped;
    for (Op *op : f.ops)
      if (op->outId(0) != out) dropped.push_back(op->outId(0));
    for (Op *op : f.ops) g.eraseOp(op->id);
    for (const auto &id : dropped) g.getTensors().remove(id);
    auto ln = OpManager::createOp(onnxOp("LayerNormalization", {17}), settings, attrs);
    g.connectAndSetup(g.moveIntoGraph(std::move(ln)), {{0, x}, {1, scale}, {2, bias}}, {{0, out}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(TrainingLayerNormFusion, "TrainingLayerNormFusion", false, PatternsLevel::Default);
} // namespace popart
