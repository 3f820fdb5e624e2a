// popart_core._ir (popart._internal.ir): the IR classes PopXL drives. Ops are
// created generically through the op registry (OperatorIdentifier + Attributes).
#include "bindings.hpp"

namespace popart::bindings {
void bindIrModule(py::module_ &parent);
void bindIrAutodiff(py::module_ &m);  // bind_ir_autodiff.cpp
}
#include "numpy_util.hpp"
#include "popart/attributes.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "popart/tensorinfo.hpp"
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <limits>

namespace popart::bindings {
namespace {

const auto ref = py::return_value_policy::reference;

Attributes::Value toAttribute(const std::string &name, const py::handle &v) {
  if (py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<float>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<Graph>(v)) return Attributes::Graph{v.cast<Graph &>().id};
  if (py::isinstance<py::sequence>(v)) {
    auto seq = v.cast<py::sequence>();
    if (seq.size() == 0) return Attributes::Ints{};
    py::handle first = seq[0];
    if (py::isinstance<py::str>(first)) return v.cast<std::vector<std::string>>();
    if (py::isinstance<py::float_>(first)) return v.cast<std::vector<float>>();
    return v.cast<std::vector<int64_t>>();
  }
  throw error("attribute '{}': unsupported Python type '{}'", name,
              py::str(py::type::handle_of(v).attr("__name__")).cast<std::string>());
}

Attributes toAttributes(const py::dict &d) {
  Attributes a;
  for (auto kv : d) {
    auto name = kv.first.cast<std::string>();
    a.setAttribute(name, toAttribute(name, kv.second));
  }
  return a;
}

/// A contiguous copy of `array` as bytes of `info`'s type (checked: same element count and size).
std::vector<char> arrayBytes(const TensorId &id, const TensorInfo &info, const py::array &array) {
  auto c = py::array::ensure(array, py::array::c_style);
  if (static_cast<int64_t>(c.nbytes()) != info.nbytes())
    throw error("tensor '{}': data has {} bytes, {} needs {}", id, c.nbytes(), info.toString(), info.nbytes());
  const char *p = static_cast<const char *>(c.data());
  return std::vector<char>(p, p + c.nbytes());
}

/// `domain.type` at `version`, or at the newest registered version when version <= 0.
OperatorIdentifier resolveOp(const std::string &domain, const std::string &type, int version) {
  if (version > 0) return OperatorIdentifier(domain, type, version);
  const OperatorIdentifier *id = OpManager::resolve(domain, type, std::numeric_limits<int>::max());
  if (!id) throw error("no op '{}' is registered in domain '{}'", type, domain);
  return *id;
}

void bindTensor(py::module_ &m) {
  py::enum_<TensorType>(m, "TensorType")
      .value("ActGrad", TensorType::ActGrad)
      .value("Const", TensorType::Const)
      .value("Stream", TensorType::Stream)
      .value("Unknown", TensorType::Unknown)
      .value("Variable", TensorType::Variable);
  py::class_<Tensor, std::unique_ptr<Tensor, py::nodelete>>(m, "Tensor")
      .def_readonly("id", &Tensor::id)
      .def("info", [](Tensor &t) -> TensorInfo & { return t.info; }, ref)
      .def_readwrite("info_", &Tensor::info)
      .def("tensorType", &Tensor::tensorType)
      .def("getGraph", &Tensor::getGraph, ref)
      .def("getIr", &Tensor::getIr, ref)
      .def("hasProducer", &Tensor::hasProducer)
      .def("getProducer", &Tensor::getProducer, ref)
      .def("isGraphInput", &Tensor::isGraphInput)
      .def("isGraphOutput", &Tensor::isGraphOutput)
      .def("hasTensorData", &Tensor::hasTensorData)
      .def("consumers", [](Tensor &t) { return t.consumers.getOps(); }, ref)
      .def("dataBytes", [](Tensor &t) {
        const auto &d = t.tensorData();
        return py::bytes(d.data(), d.size());
      })
      .def("setTensorData", [](Tensor &t, const py::array &a) { t.setTensorData(arrayBytes(t.id, t.info, a)); })
      .def("__repr__", [](Tensor &t) { return "Tensor(" + t.id + ", " + t.info.toString() + ")"; });
}

/// An attribute as a Python value (graphs by id).
py::object fromAttribute(const Attributes::Value &v) {
  return std::visit([](const auto &x) -> py::object {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, Attributes::Graph>) {
      return py::str(x.id);
    } else if constexpr (std::is_same_v<T, Attributes::Graphs>) {
      py::list l;
      for (const auto &g : x) l.append(py::str(g.id));
      return l;
    } else if constexpr (std::is_same_v<T, Attributes::Tensor>) {
      return py::bytes(x.data.data(), x.data.size());
    } else {
      return py::cast(x);
    }
  }, v);
}

void bindOp(py::module_ &m) {
  py::class_<Op, std::unique_ptr<Op, py::nodelete>>(m, "Op")
      .def_property_readonly("id", [](Op &o) { return o.id; })
      .def("opType", [](Op &o) { return o.opid.type; })
      .def("opid", [](Op &o) { return o.opid; })
      .def("name", &Op::name)
      .def("str", &Op::str)
      .def("getGraph", [](Op &o) -> Graph & { return *o.settings.graph; }, ref)
      .def("inTensor", [](Op &o, int i) { return o.inTensor(i); }, ref)
      .def("outTensor", [](Op &o, int i) { return o.outTensor(i); }, ref)
      .def("inId", [](Op &o, int i) { return o.inId(i); })
      .def("outId", [](Op &o, int i) { return o.outId(i); })
      .def("hasAttribute", [](Op &o, const std::string &n) { return o.attributes().hasAttribute(n); })
      .def("getAttribute", [](Op &o, const std::string &n) {
        auto it = o.attributes().values().find(n);
        if (it == o.attributes().values().end()) throw error("{} has no attribute '{}'", o.debugName(), n);
        return fromAttribute(it->second);
      }, py::arg("name"))
      .def("hasVirtualGraphId", [](Op &o) { return o.settings.vgraphId.has_value(); })
      .def("getVirtualGraphId", [](Op &o) {
        if (!o.settings.vgraphId) throw error("{} has no virtual graph id", o.debugName());
        return *o.settings.vgraphId;
      })
      .def("setVirtualGraphId", [](Op &o, std::optional<VGraphId> v) { o.settings.vgraphId = v; }, py::arg("value"))
      .def("hasPipelineStage", [](Op &o) { return o.settings.pipelineStage.has_value(); })
      .def("setPipelineStage", [](Op &o, std::optional<PipelineStage> v) { o.settings.pipelineStage = v; },
           py::arg("value"))
      .def("getExecutionContext", [](Op &o) { return o.settings.executionContext; })
      .def("setExecutionContext", [](Op &o, ExecutionContext c) { o.settings.executionContext = c; }, py::arg("value"))
      .def("modifies", [](Op &o, int i) { return o.modifies(i); }, py::arg("inIndex"))
      .def("aliases", [](Op &o, int i, int j) { return o.aliases(i, j); }, py::arg("inIndex"), py::arg("outIndex"))
      .def("setAttribute", [](Op &o, const std::string &n, const py::handle &v) {
        o.attributes().setAttribute(n, toAttribute(n, v));
      }, py::arg("name"), py::arg("value"))
      .def("getInputIds", [](Op &o) {
        std::map<int, TensorId> r;
        for (auto &kv : o.input->tensorMap()) r[kv.first] = kv.second->id;
        return r;
      })
      .def("getOutputIds", [](Op &o) {
        std::map<int, TensorId> r;
        for (auto &kv : o.output->tensorMap()) r[kv.first] = kv.second->id;
        return r;
      })
      .def("__repr__", [](Op &o) { return "Op(" + o.str() + ")"; });
}

void addTensor(Graph &g, const TensorId &id, TensorType type, const TensorInfo &info, const py::array &a) {
  auto bytes = arrayBytes(id, info, a);
  if (type == TensorType::Variable)
    g.getTensors().addVarInit(id, info, bytes.data());
  else
    g.getTensors().addConstInit(id, info, bytes.data());
}

void bindGraph(py::module_ &m) {
  py::class_<Graph, std::unique_ptr<Graph, py::nodelete>>(m, "Graph")
      .def_property_readonly("id", [](Graph &g) { return g.id; })
      .def("getGraphString", &Graph::displayName)
      .def("getIr", &Graph::getIr, ref)
      .def("isMainGraph", &Graph::isMainGraph)
      .def("getTensor", &Graph::getTensor, ref)
      .def("hasTensor", [](Graph &g, const TensorId &id) { return g.getTensors().contains(id); })
      .def("getTensorIds", [](Graph &g) { return g.getTensors().getAllTensorIds(); })
      .def("getTensorsOfType", [](Graph &g, TensorType t) { return g.getTensors().getOfType(t); }, ref)
      .def("getOps", [](Graph &g) {
        std::vector<Op *> r;
        for (auto &kv : g.getOps()) r.push_back(kv.second.get());
        return r;
      }, ref)
      .def("getOp", &Graph::getOp, ref)
      .def("getOpSchedule", [](Graph &g, bool) { return g.getOpSchedule(); }, py::arg("requireOptimalSchedule") = true, ref)
      .def("getInputIds", &Graph::getInputIds)
      .def("getOutputIds", &Graph::getOutputIds)
      .def("getInputId", &Graph::getInputId)
      .def("getOutputId", &Graph::getOutputId)
      .def("addInput", [](Graph &g, const TensorId &id, const TensorInfo &info) { g.addInput(id, info); })
      .def("markAsInput", &Graph::markAsInput)
      .def("markAsOutput", &Graph::markAsOutput)
      .def("removeOutput", &Graph::removeOutput)
      .def("addStream", [](Graph &g, const TensorId &id, const TensorInfo &info) { g.getTensors().addStream(id, info); })
      .def("addActGrad", [](Graph &g, const TensorId &id) { g.getTensors().addActGrad(id); })
      .def("addVarInit", [](Graph &g, const TensorId &id, const TensorInfo &info, const py::array &a) {
        addTensor(g, id, TensorType::Variable, info, a);
      })
      .def("addConstInit", [](Graph &g, const TensorId &id, const TensorInfo &info, const py::array &a) {
        addTensor(g, id, TensorType::Const, info, a);
      })
      .def("addTopoCon", &Graph::addTopoCon)
      .def("getTopoCons", &Graph::getTopoCons)
      .def("createConnectedOp",
           [](Graph &g, const std::string &domain, const std::string &type, int version,
              const std::map<InIndex, TensorId> &ins, const std::map<OutIndex, TensorId> &outs,
              const py::dict &attrs, const std::string &name) {
             return g.createConnectedOp(resolveOp(domain, type, version), ins, outs, toAttributes(attrs), name);
           },
           py::arg("domain"), py::arg("type"), py::arg("version") = 0, py::arg("inputs"), py::arg("outputs"),
           py::arg("attributes") = py::dict(), py::arg("name") = "", ref)
      .def("__repr__", [](Graph &g) { return "Graph(" + g.displayName() + ")"; });
}

void bindIr(py::module_ &m) {
  py::class_<Ir, std::shared_ptr<Ir>>(m, "Ir")
      .def(py::init([] { return std::make_shared<Ir>(); }))
      .def("getMainGraph", &Ir::getMainGraph, ref)
      .def("getGraph", &Ir::getGraph, ref)
      .def("hasGraph", &Ir::hasGraph)
      .def("createGraph", &Ir::createGraph, ref)
      .def("removeGraph", &Ir::removeGraph)
      .def("getAllGraphs", &Ir::getAllGraphs, ref)
      .def("getSessionOptions", py::overload_cast<>(&Ir::getSessionOptions), ref)
      .def("setUserOptions", &Ir::setUserOptions)
      .def("getDataFlow", &Ir::getDataFlow, ref)
      .def("setDataFlow", &Ir::setDataFlow, py::arg("dataFlow"))
      .def("getFinalLossId", &Ir::getFinalLossId)
      .def("setFinalLossId", &Ir::setFinalLossId, py::arg("id"))
      .def("isTraining", &Ir::isTraining)
      .def("setPatterns", &Ir::setPatterns)
      .def("isPrepared", &Ir::isPrepared)
      .def("setIsPrepared", &Ir::setIsPrepared)
      .def("createIntermediateTensorId", &Ir::createIntermediateTensorId)
      .def("dotCheckpoint", [](Ir &ir, const std::string &name) { ir.dotCheckpoint(name); })
      .def("serialise", &Ir::serialise)
      .def("logIr", [](const Ir &ir) { logging::ir::info("{}", ir.serialise()); },
           "Logs the IR as JSON at level INFO of the 'ir' log module")
      .def("updateVertices", [](Ir &ir) {
        for (Graph *g : ir.getAllGraphs())
          for (Op *op : g->getOpSchedule()) op->setup();
      }, "Re-runs every op's setup (output types and shapes) in schedule order, after a front end changed ops")
      .def("getOpSetVersion", &Ir::getOpSetVersion);
}

// OperatorIdentifier is bound once, in the top-level module (bind_registry.cpp); _ir re-exports it.
void bindOperatorIdentifier(py::module_ &m, py::module_ &parent) {
  m.attr("OperatorIdentifier") = parent.attr("OperatorIdentifier");
  m.def("supportedOperations", [](bool includePrivate) { return OpManager::getSupportedOperations(includePrivate); },
        py::arg("includePrivate") = true);
}

} // namespace

void bindIrModule(py::module_ &parent) {
  auto m = parent.def_submodule("_ir", "The IR classes PopXL builds on (popart._internal.ir)");
  m.attr("TensorInfo") = parent.attr("_TensorInfoCore");
  m.attr("DataType") = parent.attr("DataType");
  m.attr("SessionOptions") = parent.attr("SessionOptions");
  m.attr("Patterns") = parent.attr("Patterns");
  for (const char *name : {"ExecutionContext", "TileSet", "TensorStorage", "ReplicatedTensorSharding", "TensorLocation",
                           "CommGroup", "CommGroupType", "DataFlow", "AnchorReturnType"})
    if (py::hasattr(parent, name)) m.attr(name) = parent.attr(name);
  bindOperatorIdentifier(m, parent);
  bindTensor(m);
  bindOp(m);
  bindGraph(m);
  bindIr(m);
  bindIrAutodiff(m);
}

} // namespace popart::bindings
