// GemmFusion (inference only): a Gemm, or a MatMul whose right operand is 2-D (a Linear layer), followed by
// an Add of a bias that broadcasts along the product's rows (not for a Gemm that already has C) and/or an
// activation (a Relu, or the five ops of an erf GELU), each intermediate read only by the next op, becomes
// one GemmFused op computing Y = act(alpha * A' B' + beta * C), run by oneDNN as a matmul with binary-add and
// eltwise post-ops: no pass over the output per folded op. Intermediate tensors must not be graph outputs or anchors; float types
// only; training graphs and ops under topological constraints are left alone.
#include "fusion_util.hpp"
#include "ops/gemm.hpp"
#include "popart/patterns.hpp"
#include <algorithm>

namespace popart {
namespace {

using fusion::constrained;
using fusion::fusibleFloat;
using fusion::fusibleRelu;
using fusion::isOnnx;
using fusion::sameStage;
using fusion::soleConsumer;


bool fusibleProduct(const Op *op) {
  if (isOnnx(op, "Gemm")) return op->input->n() >= 2 && op->hasInput(0) && op->hasInput(1);
  return isOnnx(op, "MatMul") && op->input->n() == 2 && op->inInfo(1).rank() == 2 && op->inInfo(0).rank() >= 2;
}

/// Whether `bias` broadcasts over the rows of `out`'s [rows, N] product: rank <= 2, the last dim N or 1, and
/// for an output of rank > 2 every other dim 1; a 2-D output takes any unidirectional broadcast of [M, N].
bool biasShaped(const TensorInfo &bias, const TensorInfo &out) {
  const Shape &b = bias.shape(), &o = out.shape();
  if (bias.dataType() != out.dataType() || b.size() > 2) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    int64_t d = b[b.size() - 1 - i], want = o[o.size() - 1 - i];
    if (d != 1 && (d != want || (i == 1 && o.size() > 2))) return false;
  }
  return true;
}

/// Input index of the bias when `add` adds a bias to `mm`'s output (of unchanged shape), else -1.
int biasIndex(const Op *add, const Op *mm) {
  if (!isOnnx(add, "Add") || add->input->n() != 2 || (isOnnx(mm, "Gemm") && mm->hasInput(2))) return -1;
  int mmIn = add->inId(0) == mm->outId(0) ? 0 : 1, other = 1 - mmIn;
  if (add->inId(mmIn) != mm->outId(0) || add->inId(other) == mm->outId(0)) return -1;
  return add->outInfo(0) == mm->outInfo(0) && biasShaped(add->inInfo(other), mm->outInfo(0)) ? other : -1;
}

/// The ops of an erf GELU of x (fusion::erfGeluAround) whose intermediates and x itself are read by those ops
/// only (x disappears into the fused product); empty if none. The last op's output is y.
std::vector<Op *> geluOps(const Tensor *x) {
  auto readers = x->consumers.getOps();
  if (x->consumers.getTotal() != 2 || readers.size() != 2) return {};
  for (Op *scale : readers) {
    auto gelu = fusion::erfGeluAround(soleConsumer(scale));
    if (gelu.x != x) continue;
    auto in = [&](const Op *op) { return std::find(gelu.ops.begin(), gelu.ops.end(), op) != gelu.ops.end(); };
    if (in(readers[0]) && in(readers[1])) return gelu.ops;
  }
  return {};
}

/// The ops folded into the product: an optional bias Add, then an optional activation (a Relu, or the ops of
/// an erf GELU).
struct FusionChain {
  Op *add = nullptr;
  int bias = -1;
  GemmActivation activation = GemmActivation::None;
  std::vector<Op *> act;  // the activation's ops; the last one's output is the result
  bool empty() const { return !add && act.empty(); }
};

/// The activation applied to `op`'s result, if one can be folded.
void foldActivation(FusionChain &f, Op *op) {
  const Tensor *x = op->outTensor(0);
  if (x->isGraphOutput() || op->getIr().getDataFlow().isAnchored(x->id)) return;
  Op *next = soleConsumer(op);
  if (fusibleRelu(next)) {
    f.activation = GemmActivation::Relu;
    f.act = {next};
  } else if (auto gelu = geluOps(x); !gelu.empty()) {
    for (const Op *g : gelu)
      if (!sameStage(g, op)) return;
    f.activation = GemmActivation::Gelu;
    f.act = std::move(gelu);
  }
}

FusionChain fusionChain(Op *mm) {
  FusionChain f;
  Op *next = soleConsumer(mm);
  if (next && (f.bias = biasIndex(next, mm)) >= 0) f.add = next;
  foldActivation(f, f.add ? f.add : mm);
  if (f.add && constrained(f.add)) return {};
  for (const Op *a : f.act)
    if (constrained(a)) f.act.clear(), f.activation = GemmActivation::None;
  return f;
}

class GemmFusion final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!fusibleProduct(op) || op->getIr().isTraining() || constrained(op) || !fusibleFloat(op->outInfo(0).dataType()))
      return false;
    return !fusionChain(op).empty();
  }

  bool apply(Op *mm) const override {
    Graph &g = mm->getGraph();
    FusionChain f = fusionChain(mm);
    bool gemm = isOnnx(mm, "Gemm");
    auto attr = [&](const char *name, float dflt) { return gemm ? mm->attr<Attributes::Float>(name, dflt) : dflt; };
    auto flag = [&](const char *name) { return gemm && mm->attr<Attributes::Int>(name, 0) != 0; };
    float beta = f.add ? 1.0f : attr("beta", 1.0f);
    auto fused = makeGemmFusedOp(mm->settings, flag("transA"), flag("transB"), attr("alpha", 1.0f), beta,
                                 f.activation);
    std::map<InIndex, TensorId> ins{{0, mm->inId(0)}, {1, mm->inId(1)}};
    if (gemm && mm->hasInput(2)) ins[2] = mm->inId(2);
    if (f.add) ins[2] = f.add->inId(f.bias);
    std::vector<Op *> folded{mm, f.add};
    folded.insert(folded.end(), f.act.begin(), f.act.end());
    fusion::replaceChain(g, folded, std::move(fused), ins);
    return true;
  }
};

} // namespace
POPART_REGISTER_PATTERN(GemmFusion, "GemmFusion", false, PatternsLevel::Default);
} // namespace popart
