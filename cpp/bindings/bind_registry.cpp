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
  py::class_<OperatorIdentifier>(m, "OperatorIdentifier",
                                 "Identifies an op: domain (\"ai.onnx\", \"ai.graphcore\", a custom domain), type "
                                 "and opset version, with the numbers of inputs and outputs it takes.")
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
           py::arg("numOutputs") = -1,
           "numInputs: (min, max) inputs, None for any; numOutputs: -1 for any.")
      .def_readonly("domain", &OperatorIdentifier::domain, "The domain of the op, e.g. \"ai.onnx\".")
      .def_readonly("type", &OperatorIdentifier::type, "The op's type name, e.g. \"Relu\".")
      .def_readonly("version", &OperatorIdentifier::version, "The opset version the op was defined in.")
      .def_property_readonly("numInputs",
                             [](const OperatorIdentifier &o) { return std::make_pair(o.numInputsMin, o.numInputsMax); },
                             "The (min, max) number of inputs; -1 means unbounded.")
      .def_readonly("numOutputs", &OperatorIdentifier::numOutputs, "The number of outputs (-1: variable).")
      .def("__eq__", &OperatorIdentifier::operator==)
      .def("__ne__", &OperatorIdentifier::operator!=)
      .def("__lt__", &OperatorIdentifier::operator<)
      .def("__hash__", [](const OperatorIdentifier &o) { return py::hash(py::make_tuple(o.domain, o.type, o.version)); })
      .def("__str__", [](const OperatorIdentifier &o) { return toString(o); })
      .def("__repr__", [](const OperatorIdentifier &o) { return "OperatorIdentifier(" + toString(o) + ")"; });
}

void bindOpDefinition(py::module_ &m) {
  py::class_<OpDefinition> d(m, "OpDefinition",
                             "What a registered op accepts: its inputs and outputs with their supported types, and "
                             "its attributes with a pattern of allowed values.");
  py::class_<OpDefinition::Input>(d, "Input", "An input of an op: name, supported types, whether it must be constant.")
      .def(py::init([](std::string n, std::vector<DataType> types, bool constant) {
             return OpDefinition::Input{std::move(n), std::move(types), constant};
           }),
           py::arg("name"), py::arg("supportedTensors"), py::arg("constant") = false,
           "An input `name` of the DataTypes `supportedTensors`; `constant`: known when the session is prepared.")
      .def_readonly("name", &OpDefinition::Input::name, "The input's name.")
      .def_readonly("supportedTensors", &OpDefinition::Input::supportedTensors, "The DataTypes accepted.")
      .def_readonly("constant", &OpDefinition::Input::constant, "Whether the value must be a compile-time constant.");
  py::class_<OpDefinition::Output>(d, "Output", "An output of an op: name and the types it can have.")
      .def(py::init([](std::string n, std::vector<DataType> types) {
             return OpDefinition::Output{std::move(n), std::move(types)};
           }),
           py::arg("name"), py::arg("supportedTensors"), "An output `name` of the DataTypes `supportedTensors`.")
      .def_readonly("name", &OpDefinition::Output::name, "The output's name.")
      .def_readonly("supportedTensors", &OpDefinition::Output::supportedTensors, "The DataTypes it can have.");
  py::class_<OpDefinition::Attribute>(d, "Attribute", "An attribute of an op with a pattern of allowed values.")
      .def(py::init([](std::string regex) { return OpDefinition::Attribute{std::move(regex)}; }),
           py::arg("supportedValuesRegex"), "An attribute whose values (as text) match `supportedValuesRegex`.")
      .def_readonly("supportedValuesRegex", &OpDefinition::Attribute::supportedValuesRegex,
                    "The regular expression allowed values match (\"*\": any).");
  d.def(py::init<OpDefinition::Inputs, OpDefinition::Outputs, OpDefinition::Attributes>(), py::arg("inputs"),
        py::arg("outputs"), py::arg("attributes"),
        "From lists of (name, Input), (name, Output) and (name, Attribute).")
      .def_readonly("inputs", &OpDefinition::inputs, "The inputs, a list of (name, Input).")
      .def_readonly("outputs", &OpDefinition::outputs, "The outputs, a list of (name, Output).")
      .def_readonly("attributes", &OpDefinition::attributes, "The attributes, a dict of name to Attribute.");
}

void bindGraphTransformer(py::module_ &m) {
  py::class_<GraphTransformer>(m, "GraphTransformer",
                               "Whole-model rewrites of an ONNX model before it is given to a session.")
      .def(py::init([](const py::object &model) {
             return std::make_unique<GraphTransformer>(py::isinstance<py::bytes>(model)
                                                           ? std::string(model.cast<py::bytes>())
                                                           : model.cast<std::string>());
           }),
           py::arg("modelProtoOrFilename"), "Load the model to transform (bytes or file name).")
      .def("getModelProto", [](const GraphTransformer &g) { return py::bytes(g.getModelProto()); },
           "The transformed model as ModelProto bytes.")
      .def("removeUnusedInputs", &GraphTransformer::removeUnusedInputs, "Remove graph inputs no node reads.")
      .def("prepareNodesForTraining", &GraphTransformer::prepareNodesForTraining,
           "Give each one-output BatchNormalization node its mean and variance outputs, which training needs.")
      .def("convertFloatsToHalfs", &GraphTransformer::convertFloatsToHalfs,
           "Turn every FLOAT tensor, initializer and attribute into FLOAT16.")
      .def("convertInitializersToConstants", &GraphTransformer::convertInitializersToConstants, py::arg("ids"),
           "Turn the initializers `ids` into Constant nodes (they stop being weights).")
      .def("convertAllFixedPointInitializersToConstants",
           &GraphTransformer::convertAllFixedPointInitializersToConstants,
           "Turn every integer initializer into a Constant node.")
      .def("saveInitializersExternally", &GraphTransformer::saveInitializersExternally, py::arg("ids"),
           py::arg("fileName"), "Store the data of the initializers `ids` in the external file `fileName`.");
}

} // namespace

void bindRegistry(py::module_ &m) {
  bindOperatorIdentifier(m);
  bindOpDefinition(m);
  bindGraphTransformer(m);
  m.def("getSupportedOperations", &OpManager::getSupportedOperations, py::arg("includeInternal"),
        "The OperatorIdentifiers of every registered op (with includeInternal, also gradient and in-place ops).");
  m.def("getSupportedOperationsDefinition", &OpManager::getSupportedOperationsDefinition,
        py::arg("includeInternal"), "A dict of OperatorIdentifier to OpDefinition for every registered op.");
  m.def("getUnsupportedOperations", &unsupportedOperations, py::arg("opsetVersion"),
        "The ai.onnx op types defined at `opsetVersion` that no registered op implements.");
  m.attr("defaultAiOnnxOpset") = kDefaultAiOnnxOpset;
  m.attr("defaultAiOnnxMlOpset") = kDefaultAiOnnxMlOpset;
  m.attr("defaultAiGraphcoreOpset") = kDefaultAiGraphcoreOpset;
  py::enum_<TensorRemapType>(m, "TensorRemapType", "Layouts of the ai.graphcore Remap op: FwdBwdReverse, FwdBwd, Fwd.")
      .value("FwdBwdReverse", TensorRemapType::FwdBwdReverse)
      .value("FwdBwd", TensorRemapType::FwdBwd)
      .value("Fwd", TensorRemapType::Fwd);
}

} // namespace popart::bindings
