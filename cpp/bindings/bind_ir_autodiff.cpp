// popart._internal.ir.autodiff: the backward graph of one graph, for popxl.transforms.autodiff.
#include "bindings.hpp"
#include "popart/attributes.hpp"
#include "popart/datatype.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include "transforms/autodiff/backward_graph.hpp"
#include "transforms/decompose_sum.hpp"
#include <algorithm>
#include <optional>
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

/// Positions of `ids` in `all` (every index when `ids` is None); throws for an id not in `all` or repeated.
std::vector<int> positions(const Graph &fwd, const std::vector<TensorId> &all, const std::optional<std::vector<TensorId>> &ids,
                           const char *what, const char *arg) {
  std::vector<int> out;
  if (!ids) {
    for (size_t i = 0; i < all.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  for (const TensorId &id : *ids) {
    auto it = std::find(all.begin(), all.end(), id);
    if (it == all.end())
      throw error("autodiff of graph '{}': {} '{}' is not {} of the graph", fwd.id, arg, id, what);
    int pos = static_cast<int>(it - all.begin());
    if (std::find(out.begin(), out.end(), pos) != out.end())
      throw error("autodiff of graph '{}': {} names '{}' twice", fwd.id, arg, id);
    if (!isFloatingPoint(fwd.getTensor(id)->info.dataType()))
      throw error("autodiff of graph '{}': {} '{}' is {}, which has no gradient", fwd.id, arg, id,
                  fwd.getTensor(id)->info.toString());
    out.push_back(pos);
  }
  return out;
}

/// (backward graph, [(type, fwd tensor id)] per backward input, [fwd input id] per backward output)
py::tuple autodiffGraph(Graph &fwd, const std::optional<std::vector<TensorId>> &gradsRequired,
                        const std::optional<std::vector<TensorId>> &gradsProvided) {
  BackwardGraphs graphs;
  BackwardGraph b = graphs.create(fwd, positions(fwd, fwd.getInputIds(), gradsRequired, "an input", "grads_required"),
                                  positions(fwd, fwd.getOutputIds(), gradsProvided, "an output", "grads_provided"));
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
  m.def("autodiffGraph", &autodiffGraph, py::arg("graph"), py::arg("gradsRequired") = py::none(),
        py::arg("gradsProvided") = py::none(),
        "The backward graph of `graph` with the gradients of its float inputs `gradsRequired` (ids; default "
        "all) as outputs, from the gradients of its outputs `gradsProvided` (default all); returns "
        "(graph, expected inputs, expected outputs) as (type, forward tensor id) pairs");
  m.def("decomposeSum", &decomposeSums, py::arg("graph"),
        "Replaces each Sum of more than two inputs in `graph` by a chain of Adds; returns how many were replaced");
}

} // namespace popart::bindings
