// ConvFusion (inference only): a Conv, optionally followed by an inference BatchNormalization of its
// result, whose result feeds only a Relu, or only an Add with a tensor Z of the same type and shape
// (optionally followed by a Relu that is the Add result's only consumer), becomes one ConvFused op computing
// Y = relu?(bn?(Conv(X, W, B)) + Z?), run by oneDNN as a convolution with per-channel multiply and add
// (the normalisation, from the current statistics at each run), sum and ReLU post-ops. Intermediate tensors must not be graph outputs or anchors. Training graphs are left alone
// (autodiff needs the separate ops), as are ops under topological constraints.
#include "fusion_util.hpp"
#include "ops/batchnorm.hpp"
#include "ops/conv_attributes.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/patterns.hpp"
#include "popart/tensor.hpp"

namespace popart {
namespace {

using fusion::constrained;
using fusion::fusibleRelu;
using fusion::isOnnx;
using fusion::soleConsumer;

/// Whether `bn` is an inference BatchNormalization of `conv`'s output with per-channel parameters of its type.
bool fusibleBatchNorm(const Op *bn, const Op *conv) {
  const auto *b = dynamic_cast<const BatchNormOp *>(bn);
  if (!b || !isOnnx(bn, "BatchNormalization") || b->training() || bn->output->n() != 1 || !bn->hasOutput(0) ||
      bn->input->n() != 5 || bn->inId(0) != conv->outId(0))
    return false;
  const TensorInfo &y = conv->outInfo(0);
  for (InIndex i = 1; i < 5; ++i)
    if (bn->inInfo(i).shape() != Shape{y.dim(1)} || bn->inInfo(i).dataType() != y.dataType()) return false;
  return true;
}

/// Input index of Z when `add` is an Add of `conv`'s output and a tensor Z of the same type and shape, else -1.
int addendIndex(const Op *add, const Op *conv) {
  if (!add || !isOnnx(add, "Add") || add->input->n() != 2) return -1;
  int convIn = add->inId(0) == conv->outId(0) ? 0 : 1;
  int other = 1 - convIn;
  if (add->inId(convIn) != conv->outId(0) || add->inId(other) == conv->outId(0)) return -1;
  return add->inInfo(other) == conv->outInfo(0) && add->outInfo(0) == conv->outInfo(0) ? other : -1;
}

/// The ops fused into `conv`: an optional BatchNormalization, then an optional Add and an optional Relu.
struct ConvChain {
  Op *bn = nullptr, *add = nullptr, *relu = nullptr;
  int addend = -1;
  bool empty() const { return !bn && !add && !relu; }
};

/// A Relu that pattern MaxPoolReluFusion folds into the MaxPool after it (cheaper there: a quarter of the
/// elements, and no post-op) is left to it.
bool leftToPool(Op *relu) {
  return fusion::maxPoolTakingRelu(relu) && relu->getIr().getPatterns().isPatternEnabled("MaxPoolReluFusion");
}

ConvChain convChain(Op *conv) {
  ConvChain f;
  Op *next = soleConsumer(conv);
  if (next && fusibleBatchNorm(next, conv) && !constrained(next)) {
    f.bn = next;
    next = soleConsumer(next);
  }
  const Op *base = f.bn ? f.bn : conv;  // the op whose result the Add or Relu reads
  if (fusibleRelu(next)) {
    f.relu = leftToPool(next) ? nullptr : next;
  } else if (next && (f.addend = addendIndex(next, base)) >= 0) {
    f.add = next;
    Op *after = soleConsumer(next);
    if (fusibleRelu(after) && !constrained(after) && !leftToPool(after)) f.relu = after;
  }
  if (f.add && constrained(f.add)) f.add = nullptr, f.relu = nullptr;
  if (f.relu && !f.add && constrained(f.relu)) f.relu = nullptr;
  return f;
}

class ConvFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!isOnnx(op, "Conv") || op->getIr().isTraining() || constrained(op)) return false;
    return !convChain(op).empty();
  }

  bool apply(Op *conv) const override {
    Graph &g = conv->getGraph();
    ConvChain f = convChain(conv);
    std::map<InIndex, TensorId> ins;
    for (const auto &[i, t] : conv->input->tensorMap()) ins[i] = t->id;
    if (f.add) ins[3] = f.add->inId(f.addend);
    if (f.bn)
      for (InIndex i = 1; i < 5; ++i) ins[3 + i] = f.bn->inId(i);
    auto fused = makeConvFusedOp(*conv, f.relu != nullptr);
    if (f.bn) fused->attributes().setAttribute("epsilon", f.bn->attr<Attributes::Float>("epsilon", 1e-5f));
    fusion::replaceChain(g, {conv, f.bn, f.add, f.relu}, std::move(fused), ins);
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(ConvFusion, "ConvFusion", false, PatternsLevel::Default);
} // namespace popart
