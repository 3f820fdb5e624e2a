#include "shared_update.hpp"
#include "memory_plan.hpp"
#include "ops/collectives.hpp"
#include "popart/adam.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "popart/variablesettings.hpp"
#include <algorithm>
#include <unordered_map>

namespace popart::popx {
namespace {

// Where an op runs in a step of the main graph: the accumulation cycle's outer
// fragment runs after the inner ops (its own hand-off), else schedule order.
using Place = std::pair<int, size_t>;

// Every op reading t or a view of t (through aliasing outputs), with the input index.
void readers(const Tensor *t, std::vector<std::pair<Op *, InIndex>> &out) {
  for (Op *c : t->consumers.getOps())
    for (InIndex i : c->input->indices(const_cast<Tensor *>(t))) {
      out.emplace_back(c, i);
      for (const auto &[o, view] : c->output->tensorMap())
        if (c->aliases(i, o)) readers(view, out);
    }
}

// The gradient reduction (one weight's, or a fused one of many) feeding var
// update u when it reduces over all `replicas` replicas by Add or Mean, its
// output read by u only; else null.
const Op *sliceableReduction(const Ir &ir, const Op &u, int64_t replicas) {
  const Tensor *g = u.inTensor(1);
  if (!g->hasProducer() || g->consumers.getOps().size() != 1 || ir.getDataFlow().isAnchored(g->id)) return nullptr;
  const Op *r = g->getProducer();
  const bool single = r->opid.domain == "ai.graphcore" &&
                      (r->opid.type == "ReplicatedAllReduce" || r->opid.type == "ReplicatedAllReduceInplace");
  const bool fused = r->opid.type == "ReplicatedAllReduceFused" || r->opid.type == "ReplicatedAllReduceFusedInplace";
  if (!single && !fused) return nullptr;
  const int64_t op = collectives::collectiveOperator(*r);
  if ((op != 0 && op != 1) || collectives::hostAllReduce(*r) || collectives::groupSize(*r) != replicas) return nullptr;
  return r;
}

bool sliceableUpdate(const Op &u) {
  if (u.attr<Attributes::Int>("stateShards", 1) > 1 || u.attr<Attributes::Int>("clipNorm", 0) != 0) return false;
  const auto mode = u.attr<Attributes::Int>("mode", -1);
  return !(u.attr<Attributes::String>("algorithm") == "Adam" &&
           (mode == static_cast<int64_t>(AdamMode::Lamb) || mode == static_cast<int64_t>(AdamMode::LambNoBias)));
}

// Product p's operands are FLOAT, left [..., rows of x] and right [..., columns of x] with the same
// leading dims (rows of samples) for its 2-D result x, and at most twice x: the operands a replica
// exchanges (and stacks), against x, which the other way is written by the product and read and
// written again to be reduced: rows (K + N) <= 2 K N.
bool exchangeable(const SampleProduct &p, const Tensor &x) {
  const Shape &sl = p.left->info.shape(), &sr = p.right->info.shape(), &sx = x.info.shape();
  if (sx.size() != 2 || sl.size() < 2 || sr.size() != sl.size() || !std::equal(sl.begin(), sl.end() - 1, sr.begin()) ||
      sl.back() != sx[0] || sr.back() != sx[1] || p.left->info.dataType() != DataType::FLOAT ||
      p.right->info.dataType() != DataType::FLOAT)
    return false;
  return p.left->info.nelms() + p.right->info.nelms() <= 2 * x.info.nelms();
}

// The weight-gradient product whose result reduced gradient g (an output of its reduction)
// reduces, read by that reduction only, when it is a FLOAT SampleProduct of a 2-D weight whose
// inputs nothing modifies after it has run; else null.
const Op *reducedProduct(const Ir &ir, const Tensor &g, const std::unordered_map<const Op *, Place> &place) {
  const Op *r = g.getProducer();
  const OutIndex o = r->output->indices(const_cast<Tensor *>(&g)).front();
  if (!r->input->hasIndex(o)) return nullptr;
  const Tensor *x = r->inTensor(o);
  if (!x->hasProducer() || x->consumers.getOps().size() != 1 || ir.getDataFlow().isAnchored(x->id) ||
      x->info.dataType() != DataType::FLOAT)
    return nullptr;
  const Op *p = x->getProducer();
  const auto product = sampleProduct(*p);
  if (!product || !exchangeable(*product, *x)) return nullptr;
  auto at = place.find(p);
  if (at == place.end()) return nullptr;
  for (const Tensor *t : {product->left, product->right}) {  // the other replicas read them until r is over
    std::vector<std::pair<Op *, InIndex>> reads;
    readers(aliasRoot(t), reads);
    for (const auto &[c, i] : reads) {
      auto pc = place.find(c);
      if (c->modifies(i) && (pc == place.end() || !(pc->second < at->second))) return nullptr;
    }
  }
  return p;
}

// The MatMulRhsGradAccumulate adding to the accumulator that reduced gradient g (an output of its
// in-place reduction) reduces, when the accumulator is a FLOAT variable only it and the reduction read,
// and the product's operands are exchangeable; else null. (The operands are read while it runs: it
// exchanges them itself.)
const Op *gatheredAccumulation(const Ir &ir, const Tensor &g) {
  const Op *r = g.getProducer();
  const OutIndex o = r->output->indices(const_cast<Tensor *>(&g)).front();
  if (!r->input->hasIndex(o) || !r->aliases(o, o)) return nullptr;
  const Tensor *x = r->inTensor(o);  // the accumulator
  if (x->tensorType() != TensorType::Variable || x->info.dataType() != DataType::FLOAT ||
      ir.getDataFlow().isAnchored(x->id))
    return nullptr;
  const Op *p = nullptr;
  for (const Op *c : x->consumers.getOps()) {
    if (c == r) continue;
    if (p || c->opid.type != "MatMulRhsGradAccumulate" || c->inTensor(2) != x) return nullptr;
    p = c;
  }
  if (!p || !p->outTensor(0)->consumers.getOps().empty() || ir.getDataFlow().isAnchored(p->outTensor(0)->id))
    return nullptr;
  return exchangeable(*sampleProduct(*p), *x) ? p : nullptr;
}

} // namespace

SharedUpdates planSharedUpdates(Ir &ir, int64_t replicas, int64_t minElements) {
  SharedUpdates plan;
  if (!ir.isTraining() || replicas < 2) return plan;
  const Graph &main = ir.getMainGraph();
  std::unordered_map<const Op *, Place> place;
  const auto schedule = main.getOpSchedule();
  for (size_t i = 0; i < schedule.size(); ++i)
    place[schedule[i]] = {schedule[i]->settings.executionContext == ExecutionContext::AccumulateOuterFragment, i};
  const auto grouped = nonDefaultVariableSettings(ir);
  for (const Op *u : schedule) {
    if (u->opid.type != "OptimizerVarUpdate" || !sliceableUpdate(*u)) continue;
    const Tensor *w = u->inTensor(0);
    const bool updatedRead = !u->output->tensorMap().empty() && !u->outTensor(0)->consumers.getOps().empty();
    if (w->tensorType() != TensorType::Variable || w->info.nelms() < minElements || grouped.count(w->id) || updatedRead)
      continue;
    const Op *r = sliceableReduction(ir, *u, replicas);
    if (!r) continue;
    // Every other reader of w has run on every replica when the reduction's exchange is over.
    std::vector<std::pair<Op *, InIndex>> reads;
    readers(w, reads);
    const bool early = std::all_of(reads.begin(), reads.end(), [&](const auto &read) {
      const Op *c = read.first;
      if (c == u) return true;
      auto at = place.find(c);
      return at != place.end() && !c->modifies(read.second) && at->second < place.at(r);
    });
    if (!early) continue;
    // Elementwise state (shaped as w) is read by the update only; scalar state stays per replica.
    std::vector<const Tensor *> state;
    bool ok = true;
    for (const auto &[i, t] : u->input->tensorMap()) {
      if (i < 3 || t->info.nelms() != w->info.nelms() || t->info.shape() != w->info.shape()) continue;
      ok = ok && t->tensorType() == TensorType::Variable && t->consumers.getOps().size() == 1 && !grouped.count(t->id);
      state.push_back(t);
    }
    if (!ok) continue;
    plan.ops.insert(u);
    plan.ops.insert(r);
    plan.grads.insert(u->inTensor(1));
    plan.tensors.insert(w);
    plan.tensors.insert(state.begin(), state.end());
    if (const Op *p = reducedProduct(ir, *u->inTensor(1), place)) {
      plan.products[u->inTensor(1)] = p;
    } else if (const Op *a = ir.getSessionOptions().enablePipelining ? nullptr
                                                                       : gatheredAccumulation(ir, *u->inTensor(1))) {
      plan.accumulations[a] = collectives::collectiveOperator(*r) == 1;  // Mean
      plan.summed.insert(u->inTensor(1));
      plan.tensors.insert(a->inTensor(2));  // the accumulator
    }
  }
  return plan;
}

std::vector<const Tensor *> inPlaceGradients(const SharedUpdates &plan, const Ir &ir) {
  std::vector<const Tensor *> out;
  for (const Op *r : plan.ops) {
    if (r->opid.type != "ReplicatedAllReduceFused" && r->opid.type != "ReplicatedAllReduceFusedInplace") continue;
    for (const auto &[i, t] : r->input->tensorMap()) {
      if (!plan.grads.count(r->outTensor(i)) || plan.products.count(r->outTensor(i)) ||
          plan.summed.count(r->outTensor(i)) ||
          ir.getDataFlow().isAnchored(t->id))
        continue;  // (a product's gradient is not made: its inputs are exchanged)
      bool own = t->tensorType() == TensorType::Variable;  // an accumulator
      if (t->tensorType() == TensorType::ActGrad && t->hasProducer()) {
        const Op *p = t->getProducer();
        own = true;
        for (OutIndex o : p->output->indices(const_cast<Tensor *>(t)))
          for (const auto &[in, x] : p->input->tensorMap()) own = own && !p->aliases(in, o);
      }
      if (own) out.push_back(t);
    }
  }
  std::sort(out.begin(), out.end(), [](const Tensor *a, const Tensor *b) { return a->id < b->id; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<SampleProduct> sampleProduct(const Op &p) {
  if (p.opid.type == "MatMulRhsGradAccumulate") return SampleProduct{p.inTensor(1), p.inTensor(0), 1.0f};
  if (p.input->n() != 2 || p.output->n() != 1) return std::nullopt;
  const Tensor *dy = p.inTensor(0), *a = p.inTensor(1);
  if (p.opid.type == "MatMulRhsGrad") return SampleProduct{a, dy, 1.0f};
  // Gemm's B gradient with a plain A: alpha A^T dY, or its transpose alpha dY^T A for transB.
  if (p.opid.type != "GemmGrad" || p.attr<Attributes::Int>("arg", -1) != 1 || p.attr<Attributes::Int>("transA", 0))
    return std::nullopt;
  const float alpha = p.attr<Attributes::Float>("alpha", 1.0f);
  return p.attr<Attributes::Int>("transB", 0) ? SampleProduct{dy, a, alpha} : SampleProduct{a, dy, alpha};
}

Slice replicaSlice(int64_t n, int64_t elemBytes, int64_t part, int64_t parts) {
  const int64_t line = std::max<int64_t>(1, 64 / std::max<int64_t>(elemBytes, 1));
  auto bound = [&](int64_t k) { return k >= parts ? n : std::min(n, n * k / parts / line * line); };
  const int64_t begin = bound(part);
  return {begin, bound(part + 1) - begin};
}

} // namespace popart::popx
