// The op registry as PopART exposes it: OperatorIdentifier, OpDefinition,
// getSupportedOperations(Definition), getUnsupportedOperations, defaultAiOnnxOpset,
// GraphTransformer and TensorRemapType.
#include "bindings.hpp"
#include "onnx/op_schema.hpp"
#include "popart/error.hpp"
#include "popart/graphtransformer.hpp"
#include "popart/opmanager.hpp"
#include <pybind11/stl.h>
#include <set>

namespace popart::bindings {
namespace {

/// PopART's default opset versions of the Builder.
constexpr int kDefaultAiOnnxOpset = 11;
constexpr int kDefaultAiOnnxMlOpset = 1;
constexpr int kDefaultAiGraphcoreOpset = 1;

/// PopART's remap layouts (the ai.graphcore Remap op).
enum class TensorRemapType { FwdBwdReverse = 0, FwdBwd, Fwd };

/// ai.onnx op types in effect at `opsetVersion` that no registered op implements.
std::vector<std::string> unsupportedOperations(int opsetVersion) {
  if (opsetVersion < 1) throw error("getUnsupportedOperations: opset version {} must be at least 1", opsetVersion);
  std::set<std::string> types;
  for (const auto &s : allOpSchemas())
    if (s.domain == "ai.onnx" && s.sinceVersion <= opsetVersion) types.insert(s.type);
  std::vector<std::string> out;
  for (const auto &t : types) {
    const OpSchema *s = findOpSchema("ai.onnx", t, opsetVersion);
    if (s && s->deprecated) continue;
    if (!OpManager::resolve("ai.onnx", t, opsetVersion)) out.push_back(t);
  }
  return out;
}

void bindOperatorIdentifier(py::module_ &m) {
  py::class_<OperatorIdentifier>(m, "OperatorIdentifier")
      .def(py::init([](const std::string &domain, const std::string &type, int version, py::object numInputs,
                       int numOutputs) {
             int lo = -1, hi = -1;
             if (!numInputs.is_none()) {
               auto t = numInputs.cast<std::pair<int, int>>();
               lo = t.first;
               hi = t.second;
             }
             return OperatorIdentifier(domain, type, version, lo, hi, numOutputs);
           }),
           py::arg("domain"), py::arg("type"), py::arg("version"), py::arg("numInputs") = py::none(),
           py::arg("numOutputs") = -1)
      .def_readonly("domain", &OperatorIdentifier::domain)
      .def_readonly("type", &OperatorIdentifier::type)
      .def_readonly("version", &OperatorIdentifier::version)
      .def_property_readonly("numInputs",
                             [](const OperatorIdentifier &o) { return std::make_pair(o.numInputsMin, o.numInputsMax); })
      .def_readonly("numOutputs", &OperatorIdentifier::numOutputs)
      .def("__eq__", &OperatorIdentifier::operator==)
      .def("__ne__", &OperatorIdentifier::operator!=)
      .def("__lt__", &OperatorIdentifier::operator<)
      .def("__hash__", [](const OperatorIdentifier &o) { return py::hash(py::make_tuple(o.domain, o.type, o.version)); })
      .def("__str__", [](const OperatorIdentifier &o) { return toString(o); })
      .def("__repr__", [](const OperatorIdentifier &o) { return "OperatorIdentifier(" + toString(o) + ")"; });
}

void bindOpDefinition(py::module_ &m) {
  py::class_<OpDefinition> d(m, "OpDefinition");
  py::class_<OpDefinition::Input>(d, "Input")
      .def(py::init([](std::string n, std::vector<DataType> types, bool constant) {
             return OpDefinition::Input{std::move(n), std::move(types), constant};
           }),
           py::arg("name"), py::arg("supportedTensors"), py::arg("constant") = false)
      .def_readonly("name", &OpDefinition::Input::name)
      .def_readonly("supportedTensors", &OpDefinition::Input::supportedTensors)
      .def_readonly("constant", &OpDefinition::Input::constant);
  py::class_<OpDefinition::Output>(d, "Output")
      .def(py::init([](std::string n, std::vector<DataType> types) {
             return OpDefinition::Output{std::move(n), std::move(types)};
           }),
           py::arg("name"), py::arg("supportedTensors"))
      .def_readonly("name", &OpDefinition::Output::name)
      .def_readonly("supportedTensors", &OpDefinition::Output::supportedTensors);
  py::class_<OpDefinition::Attribute>(d, "Attribute")
      .def(py::init([](std::string regex) { return OpDefinition::Attribute{std::move(regex)}; }),
           py::arg("supportedValuesRegex"))
      .def_readonly("supportedValuesRegex", &OpDefinition::Attribute::supportedValuesRegex);
  d.def(py::init<OpDefinition::Inputs, OpDefinition::Outputs, OpDefinition::Attributes>(), py::arg("inputs"),
        py::arg("outputs"), py::arg("attributes"))
      .def_readonly("inputs", &OpDefinition::inputs)
      .def_readonly("outputs", &OpDefinition::outputs)
      .def_readonly("attributes", &OpDefinition::attributes);
}

void bindGraphTransformer(py::module_ &m) {
  py::class_<GraphTransformer>(m, "GraphTransformer")
      .def(py::init([](const py::object &model) {
             return std::make_unique<GraphTransformer>(py::isinstance<py::bytes>(model)
                                                           ? std::string(model.cast<py::bytes>())
                                                           : model.cast<std::string>());
           }),
           py::arg("modelProtoOrFilename"))
      .def("getModelProto", [](const GraphTransformer &g) { return py::bytes(g.getModelProto()); })
      .def("removeUnusedInputs", &GraphTransformer::removeUnusedInputs)
      .def("prepareNodesForTraining", &GraphTransformer::prepareNodesForTraining)
      .def("convertFloatsToHalfs", &GraphTransformer::convertFloatsToHalfs)
      .def("convertInitializersToConstants", &GraphTransformer::convertInitializersToConstants, py::arg("ids"))
      .def("convertAllFixedPointInitializersToConstants",
           &GraphTransformer::convertAllFixedPointInitializersToConstants)
      .def("saveInitializersExternally", &GraphTransformer::saveInitializersExternally, py::arg("ids"),
           py::arg("fileName"));
}

} // namespace

void bindRegistry(py::module_ &m) {
  bindOperatorIdentifier(m);
  bindOpDefinition(m);
  bindGraphTransformer(m);
  m.def("getSupportedOperations", &OpManager::getSupportedOperations, py::arg("includeInternal"));
  m.def("getSupportedOperationsDefinition", &OpManager::getSupportedOperationsDefinition,
        py::arg("includeInternal"));
  m.def("getUnsupportedOperations", &unsupportedOperations, py::arg("opsetVersion"));
  m.attr("defaultAiOnnxOpset") = kDefaultAiOnnxOpset;
  m.attr("defaultAiOnnxMlOpset") = kDefaultAiOnnxMlOpset;
  m.attr("defaultAiGraphcoreOpset") = kDefaultAiGraphcoreOpset;
  py::enum_<TensorRemapType>(m, "TensorRemapType")
      .value("FwdBwdReverse", TensorRemapType::FwdBwdReverse)
      .value("FwdBwd", TensorRemapType::FwdBwd)
      .value("Fwd", TensorRemapType::Fwd);
}

} // namespace popart::bindings
