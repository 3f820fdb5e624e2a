// ConvFusion (inference only): a Conv whose result feeds only a Relu, or only an Add with a tensor Z of the
// same type and shape (optionally followed by a Relu that is the Add result's only consumer), becomes one
// ConvFused op computing Y = relu?(Conv(X, W, B) + Z?), run by oneDNN as a convolution with sum and ReLU
// post-ops. Intermediate tensors must not be graph outputs or anchors. Training graphs are left alone
// (autodiff needs the separate ops), as are ops under topological constraints.
#include "fusion_util.hpp"
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

/// Input index of Z when `add` is an Add of `conv`'s output and a tensor Z of the same type and shape, else -1.
int addendIndex(const Op *add, const Op *conv) {
  if (!add || !isOnnx(add, "Add") || add->input->n() != 2) return -1;
  int convIn = add->inId(0) == conv->outId(0) ? 0 : 1;
  int other = 1 - convIn;
  if (add->inId(convIn) != conv->outId(0) || add->inId(other) == conv->outId(0)) return -1;
  return add->inInfo(other) == conv->outInfo(0) && add->outInfo(0) == conv->outInfo(0) ? other : -1;
}

/// The ops fused into `conv`: an optional Add and an optional Relu after it.
struct FusionChain {
  Op *add = nullptr, *relu = nullptr;
  int addend = -1;
  bool empty() const { return !add && !relu; }
};

FusionChain fusionChain(Op *conv) {
  FusionChain f;
  Op *next = soleConsumer(conv);
  if (fusibleRelu(next)) {
    f.relu = next;
  } else if ((f.addend = addendIndex(next, conv)) >= 0) {
    f.add = next;
    Op *after = soleConsumer(next);
    if (fusibleRelu(after) && !constrained(after)) f.relu = after;
  }
  if ((f.add && constrained(f.add)) || (f.relu && !f.add && constrained(f.relu))) return {};
  return f;
}

class ConvFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!isOnnx(op, "Conv") || op->getIr().isTraining() || constrained(op)) return false;
    return !fusionChain(op).empty();
  }

  bool apply(Op *conv) const override {
    Graph &g = conv->getGraph();
    FusionChain f = fusionChain(conv);
    std::map<InIndex, TensorId> ins;
    for (const auto &[i, t] : conv->input->tensorMap()) ins[i] = t->id;
    if (f.add) ins[3] = f.add->inId(f.addend);
    std::vector<TensorId> dropped{conv->outId(0)};
    if (f.add && f.relu) dropped.push_back(f.add->outId(0));
    TensorId out = (f.relu ? f.relu : f.add)->outId(0);
    auto fused = makeConvFusedOp(*conv, f.relu != nullptr);
    for (Op *op : {conv, f.add, f.relu})
      if (op) g.eraseOp(op->id);
    for (const auto &id : dropped) g.getTensors().remove(id);
    g.connectAndSetup(g.moveIntoGraph(std::move(fused)), ins, {{0, out}});
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(ConvFusion, "ConvFusion", false, PatternsLevel::Default);
} // namespace popart
