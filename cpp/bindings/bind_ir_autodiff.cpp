// popart._internal.ir.autodiff: the backward graph of one graph, for popxl.transforms.autodiff.
#include "bindings.hpp"
#include "popart/attributes.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include "transforms/autodiff/backward_graph.hpp"
#include <algorithm>
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

bool callsGraph(const Op &op, const Graph &fwd) {
  if (op.opid.type != "Call" || !op.attributes().hasAttribute("callee")) return false;
  return op.attributes().getAttribute<Attributes::Graph>("callee").id == fwd.id;
}

/// Makes `act` an output of `fwd` and of every call op of `fwd` already built, so
/// call sites hand the activation to the backward graph.
void exposeActivation(Graph &fwd, const TensorId &act) {
  const auto &outs = fwd.getOutputIds();
  if (std::find(outs.begin(), outs.end(), act) != outs.end()) return;
  fwd.markAsOutput(act);
  auto index = static_cast<OutIndex>(fwd.getOutputIds().size() - 1);
  for (Graph *g : fwd.getIr().getAllGraphs()) {
    for (auto &kv : g->getOps()) {
      Op &op = *kv.second;
      if (!callsGraph(op, fwd)) continue;
      op.createAndConnectOutTensor(index, fwd.getIr().createIntermediateTensorId(act));
      op.setup();
    }
  }
}

/// (backward graph, [(type, fwd tensor id)] per backward input, [fwd input id] per backward output)
py::tuple autodiffGraph(Graph &fwd) {
  BackwardGraphs graphs;
  BackwardGraph b = graphs.create(fwd);
  py::list ins, outs;
  for (int k : b.outGrads) ins.append(py::make_tuple("FwdGrad", fwd.getOutputId(k)));
  for (const TensorId &act : b.acts) {
    bool isInput = std::count(fwd.getInputIds().begin(), fwd.getInputIds().end(), act) != 0;
    if (!isInput) exposeActivation(fwd, act);
    ins.append(py::make_tuple("Fwd", act));
  }
  for (int i : b.inGrads) outs.append(py::make_tuple("FwdGrad", fwd.getInputId(i)));
  return py::make_tuple(py::cast(b.graph, py::return_value_policy::reference), ins, outs);
}

} // namespace

void bindIrAutodiff(py::module_ &m) {
  m.def("autodiffGraph", &autodiffGraph, py::arg("graph"),
        "The backward graph of `graph` with the gradients of its float inputs as outputs; returns "
        "(graph, expected inputs, expected outputs) as (type, forward tensor id) pairs");
}

} // namespace popart::bindings
