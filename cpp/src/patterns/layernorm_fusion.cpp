// LayerNormFusion: layer normalisation over the last axis written out in element-wise ops,
// as torch's exporter (opset < 17) and hand-written models do,
//   m = ReduceMean(x), d = x - m, v = ReduceMean(d * d or d ^ 2), y = d / Sqrt(v + eps) * gamma (+ beta),
// both ReduceMeans over the last axis with keepdims, eps a scalar constant, gamma and beta of the last
// dimension's size, becomes one LayerNormalization (ai.onnx 17) op: one kernel over each row instead of
// nine passes over the tensor (in training graphs autodiff then builds one LayerNormalizationGrad). Every
// intermediate must be read only inside the chain and be neither a graph output nor an anchor; float types
// only; ops under topological constraints are left alone.
#include "fusion_util.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"

namespace popart {
namespace {

using fusion::constrained;
using fusion::fusibleFloat;
using fusion::internal;
using fusion::isOnnx;
using fusion::scalarOp;
using fusion::soleConsumer;


/// A ReduceMean of its single input over the last axis only, keeping the dimension.
bool meanOverLastAxis(const Op *op) {
  if (!isOnnx(op, "ReduceMean") || op->input->n() != 1 || op->attr<Attributes::Int>("keepdims", 1) == 0) return false;
  auto axes = op->attr<Attributes::Ints>("axes", {});
  int64_t rank = op->inInfo(0).rank();
  return rank >= 1 && axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

/// Whether `op` is a binary `type` with `a` as input `ia` (either side when ia < 0) and returns the other input.
const Tensor *otherInput(const Op *op, const char *type, const Tensor *a, int ia = -1) {
  if (!isOnnx(op, type) || op->input->n() != 2) return nullptr;
  for (int i : {0, 1})
    if (op->inTensor(i) == a && (ia < 0 || ia == i)) return op->inTensor(1 - i);
  return nullptr;
}

/// A per-feature parameter (gamma, beta): [C] or [1, .., C] for input x of last dimension C, x's type.
bool featureParam(const Tensor *p, const TensorInfo &x) {
  if (!p || p->info.dataType() != x.dataType() || p->info.rank() > x.rank() || p->info.rank() == 0) return false;
  const Shape &s = p->info.shape();
  for (size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] != 1) return false;
  return s.back() == x.shape().back();
}

/// The chain's ops from the first ReduceMean, its epsilon, gamma and beta (null when absent); empty if none.
struct Chain {
  std::vector<Op *> ops;
  const Tensor *x = nullptr, *gamma = nullptr, *beta = nullptr;
  double eps = 0;
};

Chain layerNormChain(Op *mean) {
  Chain c;
  if (!meanOverLastAxis(mean) || !fusibleFloat(mean->inInfo(0).dataType())) return {};
  c.x = mean->inTensor(0);
  Op *sub = soleConsumer(mean);
  if (!sub || otherInput(sub, "Sub", mean->outTensor(0), 1) != c.x) return {};
  const Tensor *d = sub->outTensor(0);
  auto users = d->consumers.getOps();
  if (!internal(d) || users.size() != 2 || d->info != c.x->info) return {};
  for (int first : {0, 1}) {
    Op *square = users[first], *div = users[1 - first];
    bool product = isOnnx(square, "Mul") && square->input->n() == 2 && square->inTensor(0) == d && square->inTensor(1) == d;
    if (!product && !scalarOp(square, "Pow", d, 2.0, false)) continue;
    if (!otherInput(div, "Div", d, 0) || d->consumers.getTotal() != (product ? 3 : 2)) continue;
    Op *var = soleConsumer(square);
    if (!var || !meanOverLastAxis(var)) continue;
    Op *plusEps = soleConsumer(var);
    const Tensor *epsT = plusEps ? otherInput(plusEps, "Add", var->outTensor(0)) : nullptr;
    double eps = epsT ? fusion::scalarValue(epsT) : std::nan("");
    if (!(eps >= 0) || plusEps->outInfo(0) != var->outInfo(0)) continue;
    Op *sqrt = soleConsumer(plusEps);
    if (!isOnnx(sqrt, "Sqrt") || soleConsumer(sqrt) != div || div->inTensor(1) != sqrt->outTensor(0)) continue;
    Op *scale = soleConsumer(div);
    const Tensor *gamma = scale ? otherInput(scale, "Mul", div->outTensor(0)) : nullptr;
    if (!featureParam(gamma, c.x->info) || scale->outInfo(0) != c.x->info) continue;
    c.ops = {mean, sub, square, var, plusEps, sqrt, div, scale};
    c.gamma = gamma, c.eps = eps;
    Op *shift = soleConsumer(scale);
    const Tensor *beta = shift ? otherInput(shift, "Add", scale->outTensor(0)) : nullptr;
    if (featureParam(beta, c.x->info) && shift->outInfo(0) == c.x->info) {
      c.ops.push_back(shift);
      c.beta = beta;
    }
    for (const Op *op : c.ops)
      if (constrained(op) || op->settings.executionContext != mean->settings.executionContext ||
          op->settings.pipelineStage != mean->settings.pipelineStage || op->settings.vgraphId != mean->settings.vgraphId)
        return {};
    return c;
  }
  return {};
}

class LayerNormFusion final : public Pattern {
public:
  bool matches(Op *op) const override { return !layerNormChain(op).ops.empty(); }

  bool apply(Op *mean) const override {
    Graph &g = mean->getGraph();
    Chain c = layerNormChain(mean);
    Attributes attrs;
    attrs.setAttribute("axis", Attributes::Int(-1));
    attrs.setAttribute("epsilon", static_cast<float>(c.eps));
    auto ln = OpManager::createOp(Domain::ai_onnx, "LayerNormalization", 17, mean->settings, attrs);
    std::map<InIndex, TensorId> ins{{0, c.x->id}, {1, c.gamma->id}};
    if (c.beta) ins[2] = c.beta->id;
    fusion::replaceChain(g, c.ops, std::move(ln), ins);
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(LayerNormFusion, "LayerNormFusion", false, PatternsLevel::Default);
} // namespace popart
