// _BuilderCore (popart::Builder), its context managers and the op table
// (_opSchemas) from which the Python Builder generates its op methods.
#include "bind_builder_convert.hpp"
#include "../src/onnx/op_schema.hpp"
#include "popart/tensorlocation.hpp"
#include "popart/variablesettings.hpp"
#include <optional>
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

/// Sets a builder attribute for the duration of a `with` block, restoring the
/// previous value (nested blocks) on exit.
struct AttributeContextManager {
  Builder &builder;
  std::string name;
  NodeAttribute value;
  std::vector<std::optional<NodeAttribute>> saved;
  void enter() {
    saved.push_back(builder.hasAttribute(name) ? std::optional<NodeAttribute>(builder.getAttribute(name))
                                               : std::nullopt);
    builder.setAttribute(name, value);
  }
  void exit() {
    builder.clearAttribute(name);
    if (!saved.empty() && saved.back()) builder.setAttribute(name, *saved.back());
    if (!saved.empty()) saved.pop_back();
  }
};

/// Like AttributeContextManager for the "__outline" key/value list: entries add
/// to those of enclosing blocks.
struct KeyValueContextManager : AttributeContextManager {
  void enterMerged() {
    auto merged = std::get<std::vector<std::string>>(value);
    if (builder.hasAttribute(name)) {
      auto prev = std::get<std::vector<std::string>>(builder.getAttribute(name));
      merged.insert(merged.begin(), prev.begin(), prev.end());
    }
    auto own = value;
    value = merged;
    enter();
    value = own;
  }
};

struct NameContextManager {
  Builder &builder;
  std::string name;
};

py::dict schemaDict(const OpSchema &s) {
  py::list inputs, attrs;
  static const char *options[] = {"single", "optional", "variadic"};
  for (const auto &i : s.inputs) inputs.append(py::make_tuple(i.name, options[int(i.option)]));
  for (const auto &a : s.attributes) {
    attrs.append(py::make_tuple(a.name, toString(a.type), a.required,
                                a.hasDefault ? py::object(py::str(a.defaultText)) : py::none()));
  }
  py::dict d;
  d["domain"] = s.domain, d["type"] = s.type, d["since_version"] = s.sinceVersion;
  d["deprecated"] = s.deprecated, d["min_inputs"] = s.minInputs, d["max_inputs"] = s.maxInputs;
  d["inputs"] = inputs, d["min_outputs"] = s.minOutputs, d["max_outputs"] = s.maxOutputs;
  d["outputs"] = s.outputs, d["attributes"] = attrs;
  return d;
}

AttributeContextManager attrCM(Builder &b, const char *name, NodeAttribute v) { return {b, name, std::move(v), {}}; }

void bindContextManagers(py::module_ &m) {
  py::class_<AttributeContextManager>(m, "AttributeContextManager",
                                      "A `with` block during which every node the builder adds gets an attribute "
                                      "(virtual graph, pipeline stage, ...); the previous value returns on exit.")
      .def("__enter__", [](AttributeContextManager &c) { c.enter(); })
      .def("__exit__", [](AttributeContextManager &c, py::args) { c.exit(); });
  py::class_<KeyValueContextManager>(m, "KeyValueContextManager",
                                     "A `with` block adding outline attributes (key/value pairs) to the nodes "
                                     "created in it, on top of those of enclosing blocks.")
      .def("__enter__", [](KeyValueContextManager &c) { c.enterMerged(); })
      .def("__exit__", [](KeyValueContextManager &c, py::args) { c.exit(); });
  py::class_<NameContextManager>(m, "NameContextManager",
                                 "A `with` block prefixing the names of the tensors and nodes created in it with a "
                                 "name scope (\"scope/\").")
      .def("__enter__", [](NameContextManager &c) { c.builder.pushNameScope(c.name); })
      .def("__exit__", [](NameContextManager &c, py::args) { c.builder.popNameScope(); });
}

using B = Builder;
using Ids = std::vector<TensorId>;
const auto keep = py::keep_alive<0, 1>();  // context managers keep their builder alive

void bindInputsAndModel(py::class_<B> &c) {
  c.def("addInputTensor", [](B &b, const TensorInfo &i, const InputSettings &st, py::object dc) {
    return b.addInputTensor(i, st, debugName(dc)); }, py::arg("tensorInfo"), py::arg("settings"), py::arg("debugContext") = "",
    "Add a model input of the given TensorInfo and InputSettings; returns its tensor id.");
  c.def("addInputTensor", [](B &b, const std::string &t, const Shape &s, const InputSettings &st, py::object dc) {
    return b.addInputTensor(TensorInfo(t, s), st, debugName(dc)); },
    py::arg("dataType"), py::arg("shape"), py::arg("settings"), py::arg("debugContext") = "",
    "Add a model input from a type name (\"FLOAT\", ...), a shape and InputSettings; returns its id.");
  c.def("addInputTensor", [](B &b, const TensorInfo &i, py::object dc) { return b.addInputTensor(i, debugName(dc)); },
        py::arg("tensorInfo"), py::arg("debugContext") = "",
        "Add a model input of the given TensorInfo; returns its tensor id (debugContext names it).");
  c.def("addInputTensor", [](B &b, const std::string &t, const Shape &s, py::object dc) {
    return b.addInputTensor(t, s, debugName(dc)); }, py::arg("dataType"), py::arg("shape"), py::arg("debugContext") = "",
    "Add a model input from a type name (\"FLOAT\", \"INT32\", ...) and a shape; returns its id.");
  c.def("addUntypedInputTensor", [](B &b, py::object dc) { return b.addUntypedInputTensor(debugName(dc)); },
        py::arg("debugContext") = "",
        "Add an input without type or shape (for sub-graphs whose inputs are typed by their caller).");
  c.def("addInputTensorFromParentGraph", &B::addInputTensorFromParentGraph, py::arg("tensorId"),
        "In a sub-graph builder: use tensor `tensorId` of the enclosing graph by name.");
  // The VariableSettings overload first: the other one's debugContext accepts any object.
  c.def("addInitializedInputTensor", [](B &b, py::array v, const VariableSettings &vs, py::object dc) {
    auto d = tensorDataOf(v);
    return b.addInitializedInputTensor(d.info, d.bytes.data(), vs, debugName(dc)); },
    py::arg("initVal"), py::arg("variableSettings"), py::arg("debugContext") = "",
    "Add a weight from `initVal` with VariableSettings (how replicas share it); returns its id.");
  c.def("addInitializedInputTensor", [](B &b, py::array v, py::object dc) {
    auto d = tensorDataOf(v);
    return b.addInitializedInputTensor(d.info, d.bytes.data(), debugName(dc)); },
    py::arg("initVal"), py::arg("debugContext") = "",
    "Add a weight (an ONNX initializer) holding a copy of the numpy array `initVal`; returns its id. Weights "
    "are trained by a TrainingSession.");
  c.def("addOutputTensor", &B::addOutputTensor, py::arg("outputName"), "Make tensor `outputName` a model output.");
  c.def("getModelProto", [](const B &b) { return py::bytes(b.getModelProto()); },
        "The model as serialised ONNX ModelProto bytes.");
  c.def("saveModelProto", &B::saveModelProto, py::arg("filename"),
        "Write the model to `filename` (atomically: a failure leaves the old file).");
  c.def("saveInitializersExternally", &B::saveInitializersExternally, py::arg("ids"), py::arg("filename"),
        "Store the data of the initializers `ids` in the external file `filename` when the model is saved.");
  c.def("setGraphName", &B::setGraphName, py::arg("name"), "Set the name of the ONNX graph.");
  c.def("getGraphName", &B::getGraphName, "The name of the ONNX graph.");
  c.def("embedReplicationFactor", &B::embedReplicationFactor, py::arg("replicationFactor"),
        "Record a replication factor in the model.");
  c.def("getInputTensorIds", &B::getInputTensorIds, "The ids of the graph's inputs (weights included).");
  c.def("getOutputTensorIds", &B::getOutputTensorIds, "The ids of the graph's outputs.");
  c.def("getValueTensorIds", &B::getValueTensorIds, "The ids of the tensors with a value_info entry.");
  c.def("getTrainableTensorIds", &B::getTrainableTensorIds,
        "The ids of the weights a TrainingSession would train (initializers read by no compile-time operand).");
  c.def("getTensorShape", &B::getTensorShape, py::arg("id"), "The shape of tensor `id`, a list of ints.");
  c.def("getTensorDtypeString", &B::getTensorDtypeString, py::arg("id"),
        "The numpy name of the type of tensor `id` (\"float32\", \"int64\", ...).");
  c.def("isInitializer", &B::isInitializer, py::arg("id"), "Whether tensor `id` is an initializer (a weight).");
  c.def("hasValueInfo", &B::hasValueInfo, py::arg("id"), "Whether tensor `id` has a known type and shape.");
  c.def("hasTensor", &B::hasTensor, py::arg("id"), "Whether the graph has a tensor `id`.");
  c.def("_setTensorInfo", &B::setTensorInfo, py::arg("id"), py::arg("tensorInfo"));
  c.def("_inferTensorInfos", &B::inferTensorInfos);
}

void bindOps(py::class_<B> &c) {
  c.def("addOp", [](B &b, const std::string &domain, const std::string &type, int version, const Ids &inputs,
                    int numOutputs, py::dict attrs, py::object dc) {
    return b.addOp(domain, type, version, inputs, numOutputs, toNodeAttributes(attrs), debugName(dc)); },
    py::arg("domain"), py::arg("opType"), py::arg("opsetVersion"), py::arg("inputs"),
    py::arg("numOutputs") = -1, py::arg("attributes") = py::dict(), py::arg("debugContext") = "",
    "Add a node of any registered op by domain, type and opset version (the generic form behind the opset "
    "methods); numOutputs -1 means the op's own count. Returns the output ids.");
  c.def("customOp", [](B &b, const std::string &opName, int opVersion, const std::string &domain,
                       const Ids &inputs, py::dict attrs, unsigned numOutputs, py::object name) {
    return b.customOp(OperatorIdentifier(domain, opName, opVersion), opVersion, inputs, numOutputs,
                      toNodeAttributes(attrs), debugName(name)); },
    py::arg("opName"), py::arg("opVersion"), py::arg("domain"), py::arg("inputs"),
    py::arg("attributes") = py::dict(), py::arg("numOutputs") = 1, py::arg("name") = "",
    "Add a node of a custom op (registered by a loaded custom-op library) with the given inputs, attributes "
    "(dict) and number of outputs; returns the output ids.");
  c.def("reshape_const", [](B &b, const Ids &args, const Shape &shape, py::object dc) {
    return b.reshape_const(args, shape, debugName(dc)); }, py::arg("args"), py::arg("shape"), py::arg("debugContext") = "",
    "Reshape args[0] to the constant `shape` (a Constant node feeding a Reshape); returns [output id].");
  c.def("setDefaultOpsetVersion", &B::setDefaultOpsetVersion, py::arg("version"),
        "Set the ai.onnx opset version that ops added without an explicit opset use.");
  c.def("getOpsetVersion", &B::getOpsetVersion, py::arg("domain"), "The opset version of `domain` the model imports.");
  c.def("createSubgraphBuilder", &B::createSubgraphBuilder, py::return_value_policy::reference_internal,
        "A child builder for a sub-graph (the body of If, Loop, Scan or call).");
  c.def("hasParent", &B::hasParent, "Whether this builder is a sub-graph builder.");
}

void bindNodeAttributes(py::class_<B> &c) {
  c.def("addNodeAttribute", [](B &b, const std::string &n, py::object v, py::object outs) {
    b.addNodeAttribute(n, toNodeAttribute(v), toIdSet(outs)); },
    py::arg("attributeName"), py::arg("attributeValue"), py::arg("nodeOutputNames"),
    "Add an attribute to the node producing `nodeOutputNames` (an id or a set of ids).");
  c.def("nodeHasAttribute", [](B &b, const std::string &n, py::object o) { return b.nodeHasAttribute(n, toIdSet(o)); },
        py::arg("attributeName"), py::arg("nodeOutputNames"),
        "Whether the node producing `nodeOutputNames` has attribute `attributeName`.");
  c.def("getNodeAttribute", [](B &b, const std::string &n, py::object o) {
    return fromNodeAttribute(b.getNodeAttribute(n, toIdSet(o))); }, py::arg("attributeName"), py::arg("nodeOutputNames"),
    "The value of attribute `attributeName` of the node producing `nodeOutputNames`.");
#define POPART_NODE_GETTER(PyName, Method, Doc)                                                     \
  c.def(PyName, [](B &b, const std::string &n, py::object o) { return b.Method(n, toIdSet(o)); }, \
        py::arg("attributeName"), py::arg("nodeOutputNames"), Doc);
  POPART_NODE_GETTER("getInt64NodeAttribute", getInt64NodeAttribute, "The INT attribute of the node, as an int.")
  POPART_NODE_GETTER("getInt64VectorNodeAttribute", getInt64VectorNodeAttribute,
                     "The INTS attribute of the node, as a list of ints.")
  POPART_NODE_GETTER("getFloatNodeAttribute", getFloatNodeAttribute, "The FLOAT attribute of the node, as a float.")
  POPART_NODE_GETTER("getFloatVectorNodeAttribute", getFloatVectorNodeAttribute,
                     "The FLOATS attribute of the node, as a list of floats.")
  POPART_NODE_GETTER("getStringNodeAttribute", getStringNodeAttribute, "The STRING attribute of the node, as text.")
  POPART_NODE_GETTER("getStringVectorNodeAttribute", getStringVectorNodeAttribute,
                     "The STRINGS attribute of the node, as a list of strings.")
  POPART_NODE_GETTER("removeNodeAttribute", removeNodeAttribute,
                     "Remove attribute `attributeName` from the node producing `nodeOutputNames`.")
#undef POPART_NODE_GETTER
  c.def("getAllNodeAttributeNames", [](B &b, py::object o) { return b.getAllNodeAttributeNames(toIdSet(o)); },
        py::arg("nodeOutputNames"), "The names of every attribute of the node producing `nodeOutputNames`.");
  c.def("setAttribute", [](B &b, const std::string &n, py::object v) { b.setAttribute(n, toNodeAttribute(v)); },
        py::arg("attribute"), py::arg("value"), "Give every node added from now on the attribute `attribute`.");
  c.def("getAttribute", [](B &b, const std::string &n) { return fromNodeAttribute(b.getAttribute(n)); },
        py::arg("attribute"), "The value set with setAttribute for `attribute`.");
  c.def("hasAttribute", &B::hasAttribute, py::arg("attribute"), "Whether setAttribute set `attribute`.");
  c.def("clearAttribute", &B::clearAttribute, py::arg("attribute"), "Stop giving new nodes attribute `attribute`.");
  c.def("nameScope", [](B &b, const std::string &n) { return NameContextManager{b, n}; }, py::arg("name"), keep,
        "A `with` block in which new tensor and node names are prefixed with \"name/\".");
  c.def("getNameScope", &B::getNameScope, py::arg("name") = "",
        "The current name-scope prefix followed by `name` (default \"\").");
}

void bindPlacement(py::class_<B> &c) {
  c.def("virtualGraph", [](B &b, int64_t v) { return attrCM(b, sVirtualGraphAttribute, v); }, py::arg("value"), keep,
        "A `with` block placing new nodes on virtual graph (IPU) `value`; kept in the model, the CPU runs all.");
  c.def("virtualGraph", [](B &b, py::object o, int64_t v) { b.virtualGraph(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0, "Place the node producing `nodeOutputNames` on `value`.");
  c.def("pipelineStage", [](B &b, int64_t v) { return attrCM(b, sPipelineStageAttribute, v); }, py::arg("value"), keep,
        "A `with` block putting new nodes in pipeline stage `value` (kept in the model).");
  c.def("pipelineStage", [](B &b, py::object o, int64_t v) { b.pipelineStage(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0, "Put the node producing `nodeOutputNames` in stage `value`.");
  c.def("executionPhase", [](B &b, int64_t v) { return attrCM(b, sExecutionPhaseAttribute, v); }, py::arg("value") = 0, keep,
        "A `with` block putting new nodes in execution phase `value` (kept in the model).");
  c.def("executionPhase", [](B &b, py::object o, int64_t v) { b.executionPhase(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0, "Put the node producing `nodeOutputNames` in phase `value`.");
  c.def("getVirtualGraph", py::overload_cast<>(&B::getVirtualGraph, py::const_),
        "The virtual graph set by the enclosing virtualGraph block.");
  c.def("getVirtualGraph", [](B &b, py::object o) { return b.getVirtualGraph(toIdSet(o)); }, py::arg("nodeOutputNames"),
        "The virtual graph of the node producing `nodeOutputNames`.");
  c.def("hasVirtualGraph", &B::hasVirtualGraph, "Whether a virtualGraph block is active.");
  c.def("getPipelineStage", &B::getPipelineStage, "The pipeline stage set by the enclosing pipelineStage block.");
  c.def("hasPipelineStage", &B::hasPipelineStage, "Whether a pipelineStage block is active.");
  c.def("getExecutionPhase", &B::getExecutionPhase, "The phase set by the enclosing executionPhase block.");
  c.def("hasExecutionPhase", &B::hasExecutionPhase, "Whether an executionPhase block is active.");
  c.def("schedulePriority", [](B &b, float v) { return attrCM(b, sSchedulePriority, v); }, py::arg("value"), keep,
        "A `with` block giving new nodes scheduling priority `value`: among ready ops, higher runs first.");
  c.def("commGroup", [](B &b, int64_t type, int64_t size) {
    return attrCM(b, sCollectiveCommGroup, std::vector<int64_t>{type, size}); },
    py::arg("type") = 0, py::arg("groupSize") = 0, keep,
    "A `with` block giving new collective ops the replica group (type, groupSize); 0, 0 is all replicas.");
  c.def("outlineAttributes", [](B &b, py::dict kv) {
    std::vector<std::string> flat;
    for (auto [k, v] : kv) flat.push_back(py::str(k)), flat.push_back(py::str(v));
    return KeyValueContextManager{{b, sOutlineAttribute, flat, {}}}; }, py::arg("attributes"), keep,
    "A `with` block adding the key/value pairs of the dict `attributes` to new nodes (outlining hints).");
}

void bindAnnotations(py::class_<B> &c) {
  c.def("recomputeOutput", [](B &b, RecomputeType v) { return attrCM(b, sRecomputeOutputAttribute, int64_t(v)); },
        py::arg("value") = RecomputeType(0), keep,
        "A `with` block marking new nodes with a RecomputeType (Undefined, Checkpoint, Recompute, Recomputed).");
  c.def("recomputeOutput", [](B &b, const std::string &o, RecomputeType v) { b.recomputeOutput(o, v); },
        py::arg("nodeOutputNames"), py::arg("value") = RecomputeType(0),
        "Mark the node producing `nodeOutputNames` with a RecomputeType.");
  c.def("recomputeOutputInBackwardPass", [](B &b, py::object o, RecomputeType v) {
    b.recomputeOutputInBackwardPass(toIdSet(o), v); }, py::arg("nodeOutputNames"), py::arg("value") = RecomputeType(2),
    "Recompute the node's output in the backward pass instead of keeping it (value Recompute, the default) or "
    "keep it (Checkpoint).");
  c.def("getRecomputeOutputInBackwardPass", [](B &b, py::object o) {
    return b.getRecomputeOutputInBackwardPass(toIdSet(o)); }, py::arg("nodeOutputNames"),
    "Whether the node producing `nodeOutputNames` is recomputed in the backward pass.");
  c.def("checkpointOutput", &B::checkpointOutput, py::arg("nodeOutputNames"),
        "Add checkpoint nodes after the given tensors, whose values are kept for the backward pass; returns their ids.");
  c.def("outputTensorLocation", [](B &b, const TensorLocation &v) {
    return attrCM(b, sOutputTensorLocationAttribute, v.serialize()); }, py::arg_v("value", TensorLocation(), "TensorLocation()"), keep,
    "A `with` block giving the outputs of new nodes a TensorLocation (stored; all memory is host memory here).");
  c.def("outputTensorLocation", &B::outputTensorLocation, py::arg("nodeOutputNames"),
        py::arg_v("value", TensorLocation(), "TensorLocation()"),
        "Give the given outputs a TensorLocation (stored).");
  c.def("setAvailableMemoryProportion", [](B &b, py::object o, float p) { b.setAvailableMemoryProportion(toIdSet(o), p); },
        py::arg("nodeOutputName"), py::arg("availableMemoryProportion"),
        "Share of IPU tile memory a conv or matmul may use for temporaries (checked to lie in (0, 1]; stored).");
  c.def("setPartialsType", &B::setPartialsType, py::arg("nodeOutputName"), py::arg("partialsType"),
        "Type of the partial sums (\"FLOAT\" or \"HALF\") of a conv or matmul (stored; CPU kernels use float).");
  c.def("getPartialsType", &B::getPartialsType, py::arg("nodeOutputName"), "The partials type set with setPartialsType.");
  c.def("setEnableConvDithering", &B::setEnableConvDithering, py::arg("nodeOutputName"), py::arg("enableConvDithering"),
        "Enable convolution dithering on an IPU (stored).");
  c.def("setInplacePreferences", &B::setInplacePreferences, py::arg("nodeOutputName"), py::arg("prefs"),
        "Priorities of the node's in-place variants, a dict of variant op type to priority (higher first).");
  c.def("setSerializeMatMul", [](B &b, py::object o, const std::string &mode, int64_t f, bool k) {
    b.setSerializeMatMul(toIdSet(o), mode, f, k); },
    py::arg("nodeOutputName"), py::arg("mode"), py::arg("factor") = 0, py::arg("keep_precision") = false,
    "Ask for a matmul to be serialised in `factor` parts along `mode` (stored; the CPU computes it at once).");
  c.def("excludePatterns", &B::excludePatterns, py::arg("nodeOutputName"), py::arg("patternNames"),
        "Keep the named patterns from rewriting the node producing `nodeOutputName`.");
  c.def("setExecutionContext", &B::setExecutionContext, py::arg("nodeOutputName"), py::arg("value"),
        "Set the ExecutionContext of the node (normal, accumulate outer fragment, ...).");
}

} // namespace

void bindBuilder(py::module_ &m) {
  bindBuilderSettings(m);
  bindContextManagers(m);
  py::class_<B> c(m, "_BuilderCore", "The C++ ONNX model builder; use popart.Builder, which forwards to it.");
  c.def(py::init([] { return B::create(); }), "An empty model.");
  c.def(py::init([](py::object model) {
    std::string s = py::isinstance<py::bytes>(model) ? std::string(model.cast<py::bytes>()) : model.cast<std::string>();
    return B::createFromOnnxModel(s); }), py::arg("modelProtoOrFilename"),
    "A builder continuing an ONNX model (bytes or file name).");
  bindInputsAndModel(c);
  bindOps(c);
  bindNodeAttributes(c);
  bindPlacement(c);
  bindAnnotations(c);
  m.def("_opSchemas", [] {
    py::list out;
    for (const auto &s : allOpSchemas()) out.append(schemaDict(s));
    return out;
  });
}

} // namespace popart::bindings
