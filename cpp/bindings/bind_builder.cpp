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
  py::class_<AttributeContextManager>(m, "AttributeContextManager")
      .def("__enter__", [](AttributeContextManager &c) { c.enter(); })
      .def("__exit__", [](AttributeContextManager &c, py::args) { c.exit(); });
  py::class_<KeyValueContextManager>(m, "KeyValueContextManager")
      .def("__enter__", [](KeyValueContextManager &c) { c.enterMerged(); })
      .def("__exit__", [](KeyValueContextManager &c, py::args) { c.exit(); });
  py::class_<NameContextManager>(m, "NameContextManager")
      .def("__enter__", [](NameContextManager &c) { c.builder.pushNameScope(c.name); })
      .def("__exit__", [](NameContextManager &c, py::args) { c.builder.popNameScope(); });
}

using B = Builder;
using Ids = std::vector<TensorId>;
const auto keep = py::keep_alive<0, 1>();  // context managers keep their builder alive

void bindInputsAndModel(py::class_<B> &c) {
  c.def("addInputTensor", [](B &b, const TensorInfo &i, const InputSettings &st, py::object dc) {
    return b.addInputTensor(i, st, debugName(dc)); }, py::arg("tensorInfo"), py::arg("settings"), py::arg("debugContext") = "");
  c.def("addInputTensor", [](B &b, const std::string &t, const Shape &s, const InputSettings &st, py::object dc) {
    return b.addInputTensor(TensorInfo(t, s), st, debugName(dc)); },
    py::arg("dataType"), py::arg("shape"), py::arg("settings"), py::arg("debugContext") = "");
  c.def("addInputTensor", [](B &b, const TensorInfo &i, py::object dc) { return b.addInputTensor(i, debugName(dc)); },
        py::arg("tensorInfo"), py::arg("debugContext") = "");
  c.def("addInputTensor", [](B &b, const std::string &t, const Shape &s, py::object dc) {
    return b.addInputTensor(t, s, debugName(dc)); }, py::arg("dataType"), py::arg("shape"), py::arg("debugContext") = "");
  c.def("addUntypedInputTensor", [](B &b, py::object dc) { return b.addUntypedInputTensor(debugName(dc)); },
        py::arg("debugContext") = "");
  c.def("addInputTensorFromParentGraph", &B::addInputTensorFromParentGraph, py::arg("tensorId"));
  c.def("addInitializedInputTensor", [](B &b, py::array v, py::object dc) {
    auto d = tensorDataOf(v);
    return b.addInitializedInputTensor(d.info, d.bytes.data(), debugName(dc)); },
    py::arg("initVal"), py::arg("debugContext") = "");
  c.def("addInitializedInputTensor", [](B &b, py::array v, const VariableSettings &vs, py::object dc) {
    auto d = tensorDataOf(v);
    return b.addInitializedInputTensor(d.info, d.bytes.data(), vs, debugName(dc)); },
    py::arg("initVal"), py::arg("variableSettings"), py::arg("debugContext") = "");
  c.def("addOutputTensor", &B::addOutputTensor, py::arg("outputName"));
  c.def("getModelProto", [](const B &b) { return py::bytes(b.getModelProto()); });
  c.def("saveModelProto", &B::saveModelProto, py::arg("filename"));
  c.def("saveInitializersExternally", &B::saveInitializersExternally, py::arg("ids"), py::arg("filename"));
  c.def("setGraphName", &B::setGraphName, py::arg("name"));
  c.def("getGraphName", &B::getGraphName);
  c.def("embedReplicationFactor", &B::embedReplicationFactor, py::arg("replicationFactor"));
  c.def("getInputTensorIds", &B::getInputTensorIds);
  c.def("getOutputTensorIds", &B::getOutputTensorIds);
  c.def("getValueTensorIds", &B::getValueTensorIds);
  c.def("getTrainableTensorIds", &B::getTrainableTensorIds);
  c.def("getTensorShape", &B::getTensorShape, py::arg("id"));
  c.def("getTensorDtypeString", &B::getTensorDtypeString, py::arg("id"));
  c.def("isInitializer", &B::isInitializer, py::arg("id"));
  c.def("hasValueInfo", &B::hasValueInfo, py::arg("id"));
  c.def("hasTensor", &B::hasTensor, py::arg("id"));
  c.def("_setTensorInfo", &B::setTensorInfo, py::arg("id"), py::arg("tensorInfo"));
  c.def("_inferTensorInfos", &B::inferTensorInfos);
}

void bindOps(py::class_<B> &c) {
  c.def("addOp", [](B &b, const std::string &domain, const std::string &type, int version, const Ids &inputs,
                    int numOutputs, py::dict attrs, py::object dc) {
    return b.addOp(domain, type, version, inputs, numOutputs, toNodeAttributes(attrs), debugName(dc)); },
    py::arg("domain"), py::arg("opType"), py::arg("opsetVersion"), py::arg("inputs"),
    py::arg("numOutputs") = -1, py::arg("attributes") = py::dict(), py::arg("debugContext") = "");
  c.def("customOp", [](B &b, const std::string &opName, int opVersion, const std::string &domain,
                       const Ids &inputs, py::dict attrs, unsigned numOutputs, py::object name) {
    return b.customOp(OperatorIdentifier(domain, opName, opVersion), opVersion, inputs, numOutputs,
                      toNodeAttributes(attrs), debugName(name)); },
    py::arg("opName"), py::arg("opVersion"), py::arg("domain"), py::arg("inputs"),
    py::arg("attributes") = py::dict(), py::arg("numOutputs") = 1, py::arg("name") = "");
  c.def("reshape_const", [](B &b, const Ids &args, const Shape &shape, py::object dc) {
    return b.reshape_const(args, shape, debugName(dc)); }, py::arg("args"), py::arg("shape"), py::arg("debugContext") = "");
  c.def("setDefaultOpsetVersion", &B::setDefaultOpsetVersion);
  c.def("getOpsetVersion", &B::getOpsetVersion, py::arg("domain"));
  c.def("createSubgraphBuilder", &B::createSubgraphBuilder, py::return_value_policy::reference_internal);
  c.def("hasParent", &B::hasParent);
}

void bindNodeAttributes(py::class_<B> &c) {
  c.def("addNodeAttribute", [](B &b, const std::string &n, py::object v, py::object outs) {
    b.addNodeAttribute(n, toNodeAttribute(v), toIdSet(outs)); },
    py::arg("attributeName"), py::arg("attributeValue"), py::arg("nodeOutputNames"));
  c.def("nodeHasAttribute", [](B &b, const std::string &n, py::object o) { return b.nodeHasAttribute(n, toIdSet(o)); },
        py::arg("attributeName"), py::arg("nodeOutputNames"));
  c.def("getNodeAttribute", [](B &b, const std::string &n, py::object o) {
    return fromNodeAttribute(b.getNodeAttribute(n, toIdSet(o))); }, py::arg("attributeName"), py::arg("nodeOutputNames"));
#define POPART_NODE_GETTER(PyName, Method)                                                          \
  c.def(PyName, [](B &b, const std::string &n, py::object o) { return b.Method(n, toIdSet(o)); }, \
        py::arg("attributeName"), py::arg("nodeOutputNames"));
  POPART_NODE_GETTER("getInt64NodeAttribute", getInt64NodeAttribute)
  POPART_NODE_GETTER("getInt64VectorNodeAttribute", getInt64VectorNodeAttribute)
  POPART_NODE_GETTER("getFloatNodeAttribute", getFloatNodeAttribute)
  POPART_NODE_GETTER("getFloatVectorNodeAttribute", getFloatVectorNodeAttribute)
  POPART_NODE_GETTER("getStringNodeAttribute", getStringNodeAttribute)
  POPART_NODE_GETTER("getStringVectorNodeAttribute", getStringVectorNodeAttribute)
  POPART_NODE_GETTER("removeNodeAttribute", removeNodeAttribute)
#undef POPART_NODE_GETTER
  c.def("getAllNodeAttributeNames", [](B &b, py::object o) { return b.getAllNodeAttributeNames(toIdSet(o)); },
        py::arg("nodeOutputNames"));
  c.def("setAttribute", [](B &b, const std::string &n, py::object v) { b.setAttribute(n, toNodeAttribute(v)); });
  c.def("getAttribute", [](B &b, const std::string &n) { return fromNodeAttribute(b.getAttribute(n)); });
  c.def("hasAttribute", &B::hasAttribute);
  c.def("clearAttribute", &B::clearAttribute);
  c.def("nameScope", [](B &b, const std::string &n) { return NameContextManager{b, n}; }, py::arg("name"), keep);
  c.def("getNameScope", &B::getNameScope, py::arg("name") = "");
}

void bindPlacement(py::class_<B> &c) {
  c.def("virtualGraph", [](B &b, int64_t v) { return attrCM(b, sVirtualGraphAttribute, v); }, py::arg("value"), keep);
  c.def("virtualGraph", [](B &b, py::object o, int64_t v) { b.virtualGraph(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0);
  c.def("pipelineStage", [](B &b, int64_t v) { return attrCM(b, sPipelineStageAttribute, v); }, py::arg("value"), keep);
  c.def("pipelineStage", [](B &b, py::object o, int64_t v) { b.pipelineStage(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0);
  c.def("executionPhase", [](B &b, int64_t v) { return attrCM(b, sExecutionPhaseAttribute, v); }, py::arg("value") = 0, keep);
  c.def("executionPhase", [](B &b, py::object o, int64_t v) { b.executionPhase(toIdSet(o), v); },
        py::arg("nodeOutputNames"), py::arg("value") = 0);
  c.def("getVirtualGraph", py::overload_cast<>(&B::getVirtualGraph, py::const_));
  c.def("getVirtualGraph", [](B &b, py::object o) { return b.getVirtualGraph(toIdSet(o)); }, py::arg("nodeOutputNames"));
  c.def("hasVirtualGraph", &B::hasVirtualGraph);
  c.def("getPipelineStage", &B::getPipelineStage);
  c.def("hasPipelineStage", &B::hasPipelineStage);
  c.def("getExecutionPhase", &B::getExecutionPhase);
  c.def("hasExecutionPhase", &B::hasExecutionPhase);
  c.def("schedulePriority", [](B &b, float v) { return attrCM(b, sSchedulePriority, v); }, py::arg("value"), keep);
  c.def("commGroup", [](B &b, int64_t type, int64_t size) {
    return attrCM(b, sCollectiveCommGroup, std::vector<int64_t>{type, size}); },
    py::arg("type") = 0, py::arg("groupSize") = 0, keep);
  c.def("outlineAttributes", [](B &b, py::dict kv) {
    std::vector<std::string> flat;
    for (auto [k, v] : kv) flat.push_back(py::str(k)), flat.push_back(py::str(v));
    return KeyValueContextManager{{b, sOutlineAttribute, flat, {}}}; }, py::arg("attributes"), keep);
}

void bindAnnotations(py::class_<B> &c) {
  c.def("recomputeOutput", [](B &b, RecomputeType v) { return attrCM(b, sRecomputeOutputAttribute, int64_t(v)); },
        py::arg("value") = RecomputeType(0), keep);
  c.def("recomputeOutput", [](B &b, const std::string &o, RecomputeType v) { b.recomputeOutput(o, v); },
        py::arg("nodeOutputNames"), py::arg("value") = RecomputeType(0));
  c.def("recomputeOutputInBackwardPass", [](B &b, py::object o, RecomputeType v) {
    b.recomputeOutputInBackwardPass(toIdSet(o), v); }, py::arg("nodeOutputNames"), py::arg("value") = RecomputeType(2));
  c.def("getRecomputeOutputInBackwardPass", [](B &b, py::object o) {
    return b.getRecomputeOutputInBackwardPass(toIdSet(o)); }, py::arg("nodeOutputNames"));
  c.def("checkpointOutput", &B::checkpointOutput, py::arg("nodeOutputNames"));
  c.def("outputTensorLocation", [](B &b, const TensorLocation &v) {
    return attrCM(b, sOutputTensorLocationAttribute, v.serialize()); }, py::arg("value") = TensorLocation(), keep);
  c.def("outputTensorLocation", &B::outputTensorLocation, py::arg("nodeOutputNames"), py::arg("value") = TensorLocation());
  c.def("setAvailableMemoryProportion", [](B &b, py::object o, float p) { b.setAvailableMemoryProportion(toIdSet(o), p); },
        py::arg("nodeOutputName"), py::arg("availableMemoryProportion"));
  c.def("setPartialsType", &B::setPartialsType, py::arg("nodeOutputName"), py::arg("partialsType"));
  c.def("getPartialsType", &B::getPartialsType, py::arg("nodeOutputName"));
  c.def("setEnableConvDithering", &B::setEnableConvDithering, py::arg("nodeOutputName"), py::arg("enableConvDithering"));
  c.def("setInplacePreferences", &B::setInplacePreferences, py::arg("nodeOutputName"), py::arg("prefs"));
  c.def("setSerializeMatMul", [](B &b, py::object o, const std::string &mode, int64_t f, bool k) {
    b.setSerializeMatMul(toIdSet(o), mode, f, k); },
    py::arg("nodeOutputName"), py::arg("mode"), py::arg("factor") = 0, py::arg("keep_precision") = false);
  c.def("excludePatterns", &B::excludePatterns, py::arg("nodeOutputName"), py::arg("patternNames"));
  c.def("setExecutionContext", &B::setExecutionContext, py::arg("nodeOutputName"), py::arg("value"));
}

} // namespace

void bindBuilder(py::module_ &m) {
  bindBuilderSettings(m);
  bindContextManagers(m);
  py::class_<B> c(m, "_BuilderCore");
  c.def(py::init([] { return B::create(); }));
  c.def(py::init([](py::object model) {
    std::string s = py::isinstance<py::bytes>(model) ? std::string(model.cast<py::bytes>()) : model.cast<std::string>();
    return B::createFromOnnxModel(s); }), py::arg("modelProtoOrFilename"));
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
