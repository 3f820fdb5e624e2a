// Grad ops of Call, If, Scan and Loop (ops/controlflow.hpp) and the forward
// changes they need: each F value a backward graph reads becomes an extra
// output of the forward sub-graph, so it flows out of the forward op (stacked
// per iteration for Scan and Loop) into the grad op. Values of the op's own
// inputs (outer-scope tensors, call arguments) are read from there directly.
#include "backward_graph.hpp"
#include "ops/controlflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/tensor.hpp"
#include <algorithm>

namespace popart {
namespace {

int indexIn(const std::vector<TensorId> &ids, const TensorId &id) {
  auto it = std::find(ids.begin(), ids.end(), id);
  return it == ids.end() ? -1 : static_cast<int>(it - ids.begin());
}

int appendOutput(Graph &g, const TensorId &id) {
  g.markAsOutput(id);
  return static_cast<int>(g.getOutputIds().size()) - 1;
}

// Gives `op` outputs [0, count) (new tensors where the node left one out) and sets it up again.
void connectOutputs(SubgraphOp &op, size_t count) {
  const std::string base = (op.name().empty() ? op.opid.type : op.name()) + "/out";
  for (OutIndex i = 0; i < static_cast<OutIndex>(count); ++i)
    if (!op.hasOutput(i))
      op.createAndConnectOutTensor(i, op.getIr().createIntermediateTensorId(base + std::to_string(i)));
  op.setup();
}

// Grad op input i <- forward tensor (index, type); returns i.
InIndex addInput(SubgraphGradWiring &w, int index, GradOpInType type) {
  auto i = static_cast<InIndex>(w.inputs.size());
  w.inputs.push_back({i, index, type});
  return i;
}

std::unique_ptr<Op> callGrad(CallOp &op, BackwardGraphs &graphs) {
  Graph &f = op.subgraph("callee");
  const BackwardGraph &b = graphs.shared(f);
  SubgraphGradWiring w;
  for (int o : b.outGrads) addInput(w, o, GradOpInType::GradOut);
  for (const auto &a : b.acts) {
    int i = indexIn(f.getInputIds(), a);  // callee input i is op input i
    if (i >= 0) {
      addInput(w, i, GradOpInType::In);
    } else {
      int o = indexIn(f.getOutputIds(), a);
      addInput(w, o >= 0 ? o : appendOutput(f, a), GradOpInType::Out);
    }
  }
  connectOutputs(op, f.getOutputIds().size());
  for (size_t j = 0; j < b.inGrads.size(); ++j) w.outputs[static_cast<int>(j)] = b.inGrads[j];
  return std::make_unique<CallGradOp>(op, b.graph->id, std::move(w));
}

// Both branches must keep outputs of one type and shape: a value exposed by
// one branch is matched by zeros in the other.
int exposeInBranch(Graph &branch, Graph &other, const TensorId &id) {
  int o = indexIn(branch.getOutputIds(), id);
  if (o >= 0) return o;
  const TensorInfo &info = branch.getTensor(id)->info;
  std::vector<char> zeros(static_cast<size_t>(info.nbytes()), 0);
  TensorId z = branch.getIr().createIntermediateTensorId("zeros_" + id);
  other.getTensors().addConstInit(z, info, zeros.data());
  appendOutput(other, z);
  return appendOutput(branch, id);
}

std::unique_ptr<Op> ifGrad(IfOp &op, BackwardGraphs &graphs) {
  Graph *branch[2] = {&op.subgraph("then_branch"), &op.subgraph("else_branch")};
  BackwardGraph b[2] = {graphs.create(*branch[0]), graphs.create(*branch[1])};
  if (b[0].outGrads != b[1].outGrads || b[0].inGrads != b[1].inGrads)
    throw internal_error("the branches of If have different differentiable inputs or outputs");
  SubgraphGradWiring w;
  addInput(w, 0, GradOpInType::In);  // cond
  std::vector<InIndex> gradsIn;
  for (int o : b[0].outGrads) gradsIn.push_back(addInput(w, o, GradOpInType::GradOut));
  std::vector<std::vector<InIndex>> binds(2, gradsIn);
  for (int k = 0; k < 2; ++k)
    for (const auto &a : b[k].acts) {
      int i = indexIn(branch[k]->getInputIds(), a);  // branch input i is op input 1 + i
      binds[k].push_back(i >= 0 ? addInput(w, 1 + i, GradOpInType::In)
                                : addInput(w, exposeInBranch(*branch[k], *branch[1 - k], a), GradOpInType::Out));
    }
  connectOutputs(op, branch[0]->getOutputIds().size());
  for (size_t j = 0; j < b[0].inGrads.size(); ++j) w.outputs[static_cast<int>(j)] = 1 + b[0].inGrads[j];
  return std::make_unique<IfGradOp>(op, b[0].graph->id, b[1].graph->id, std::move(binds), std::move(w));
}

// Outputs of the grad op of a Scan/Loop: the gradient of forward input i
// (body input i) is output j when backward-body output j is. Scan inputs
// (`sliced`) are written slice by slice, loop-invariant inputs summed.
struct LoopGradBuilder {
  const SubgraphOp &op;
  const BackwardGraph &b;
  IterationGradLayout layout;
  SubgraphGradWiring wiring;
  std::map<OutIndex, TensorInfo> infos;
  std::map<int, OutIndex> gradOutOf;

  void addOutputs(int firstInvariant, const std::function<bool(int, IterationGradLayout::Sliced &)> &sliced) {
    for (size_t j = 0; j < b.inGrads.size(); ++j) {
      const int i = b.inGrads[j], body = static_cast<int>(j);
      const auto out = static_cast<OutIndex>(j);
      wiring.outputs[out] = i;
      infos[out] = op.inInfo(i);
      gradOutOf[i] = out;
      IterationGradLayout::Sliced s{body, out, 0, false};
      if (i >= firstInvariant) layout.summed.emplace_back(body, out);
      else if (sliced(i, s)) layout.outs.push_back(s);
    }
  }
  void addCarried(int bodyIn, int fwdOut, int fwdIn) {
    InIndex init = addInput(wiring, fwdOut, GradOpInType::GradOut);
    OutIndex final = gradOutOf.at(fwdIn);
    layout.carried.push_back({bodyIn, final, init, final});
  }
  void addSliced(int bodyIn, int fwdIndex, GradOpInType type, int64_t axis, bool reverse) {
    layout.ins.push_back({bodyIn, addInput(wiring, fwdIndex, type), axis, reverse});
  }
  std::unique_ptr<Op> make() {
    return std::make_unique<LoopScanGradOp>(op, b.graph->id, std::move(layout), std::move(wiring), std::move(infos));
  }
};

void appendScanOutputAttribute(Op &op, const char *name) {
  if (!op.attributes().hasAttribute(name)) return;
  auto v = op.attr<Attributes::Ints>(name);
  v.push_back(0);
  op.attributes().setAttribute(name, v);
}

std::unique_ptr<Op> scanGrad(ScanOp &op, BackwardGraphs &graphs) {
  if (op.opid.version == 8)
    throw error("the gradient of Scan-8 (batch axis and sequence_lens) is not supported; use Scan-9 or later");
  Graph &f = op.subgraph("body");
  const int n = op.numStates(), m = op.numScanInputs();
  BackwardGraph b = graphs.create(f);
  LoopGradBuilder lb{op, b, {}, {}, {}, {}};
  lb.layout.length = op.sequenceLength();
  lb.addOutputs(n + m, [&](int i, IterationGradLayout::Sliced &s) {
    if (i < n) return false;  // a state: carried
    s.axis = op.inAxis(i - n);
    s.reverse = op.inReversed(i - n);
    return true;
  });
  for (size_t k = 0; k < b.outGrads.size(); ++k) {  // body output o is op output o
    const int o = b.outGrads[k], body = static_cast<int>(k);
    if (o < n) lb.addCarried(body, o, o);
    else lb.addSliced(body, o, GradOpInType::GradOut, op.outAxis(o - n), op.outReversed(o - n));
  }
  for (size_t a = 0; a < b.acts.size(); ++a) {
    const int body = static_cast<int>(b.outGrads.size() + a), i = indexIn(f.getInputIds(), b.acts[a]);
    if (i >= n + m) {
      lb.layout.whole.emplace_back(body, addInput(lb.wiring, i, GradOpInType::In));
      continue;
    }
    appendScanOutputAttribute(op, "scan_output_axes");
    appendScanOutputAttribute(op, "scan_output_directions");
    lb.addSliced(body, appendOutput(f, b.acts[a]), GradOpInType::Out, 0, false);
  }
  connectOutputs(op, f.getOutputIds().size());
  return lb.make();
}

std::unique_ptr<Op> loopGrad(LoopOp &op, BackwardGraphs &graphs) {
  if (op.tripCount() < 0)
    throw error("the gradient of Loop needs its trip count M (input 0{}) to be a constant known at compile time; "
                "a Loop whose iterations are decided at run time cannot be differentiated",
                op.hasInput(0) ? ", '" + op.inId(0) + "'" : ", absent here");
  Graph &f = op.subgraph("body");
  const int nc = op.numCarried();
  BackwardGraph b = graphs.create(f);
  LoopGradBuilder lb{op, b, {}, {}, {}, {}};
  lb.layout.length = op.tripCount();
  lb.addOutputs(2 + nc, [](int, IterationGradLayout::Sliced &) { return false; });
  for (size_t k = 0; k < b.outGrads.size(); ++k) {  // body output o is op output o - 1
    const int o = b.outGrads[k], body = static_cast<int>(k);
    if (o <= nc) lb.addCarried(body, o - 1, 1 + o);
    else lb.addSliced(body, o - 1, GradOpInType::GradOut, 0, false);
  }
  for (size_t a = 0; a < b.acts.size(); ++a) {
    const int body = static_cast<int>(b.outGrads.size() + a), i = indexIn(f.getInputIds(), b.acts[a]);
    if (i >= 2 + nc) lb.layout.whole.emplace_back(body, addInput(lb.wiring, i, GradOpInType::In));
    else lb.addSliced(body, appendOutput(f, b.acts[a]) - 1, GradOpInType::Out, 0, false);
  }
  // Which iterations ran: the body's cond input, stacked (zero rows after an early exit).
  lb.layout.mask = addInput(lb.wiring, appendOutput(f, f.getInputIds().at(1)) - 1, GradOpInType::Out);
  connectOutputs(op, f.getOutputIds().size() - 1);
  return lb.make();
}

} // namespace

std::vector<std::unique_ptr<Op>> subgraphGradOps(SubgraphOp &op, BackwardGraphs &graphs) {
  std::vector<std::unique_ptr<Op>> ops;
  if (auto *call = dynamic_cast<CallOp *>(&op)) ops.push_back(callGrad(*call, graphs));
  else if (auto *cond = dynamic_cast<IfOp *>(&op)) ops.push_back(ifGrad(*cond, graphs));
  else if (auto *scan = dynamic_cast<ScanOp *>(&op)) ops.push_back(scanGrad(*scan, graphs));
  else if (auto *loop = dynamic_cast<LoopOp *>(&op)) ops.push_back(loopGrad(*loop, graphs));
  else throw error("{} runs sub-graphs but has no gradient", op.debugName());
  return ops;
}

} // namespace popart
