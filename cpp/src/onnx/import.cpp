// Builds IR graphs from an ONNX model: initializers, inputs, nodes (through
// the op registry at the model's opset), constant folding as nodes arrive.
#include "import.hpp"
#include "model.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include "transforms/constfold.hpp"

namespace popart {
namespace {

class GraphImporter {
public:
  GraphImporter(Ir &ir, Graph &g) : ir_(ir), g_(g) {}
  void importMain(const onnxpb::Graph &og);
  void importSubgraph(const onnxpb::Graph &og);

private:
  void addInitializers(const onnxpb::Graph &og);
  TensorInfo inputInfo(const onnxpb::ValueInfo &vi) const;
  void addNode(const onnxpb::Node &n);
  void addConstantNode(const onnxpb::Node &n);
  Attributes convertAttributes(const onnxpb::Node &n, Op::Settings &settings);
  Attributes::Value convertAttribute(const onnxpb::Attribute &a, const std::string &nodeName);

  Ir &ir_;
  Graph &g_;
};

std::string nodeLabel(const onnxpb::Node &n) {
  return n.opType + (n.name.empty() ? "" : " '" + n.name + "'") +
         (n.output.empty() ? "" : " (output '" + n.output[0] + "')");
}

void GraphImporter::addInitializers(const onnxpb::Graph &og) {
  for (const auto &init : og.initializer) {
    TensorInfo info = tensorInfoOf(init);
    auto bytes = tensorBytes(init, info);
    // Float initializers are weights (Variables); integer ones are constants
    // that shape-like inputs (Reshape, Slice, ...) read at compile time.
    if (isFloatingPoint(info.dataType()))
      g_.getTensors().addVarInit(init.name, info, bytes.data());
    else
      g_.getTensors().addConstInit(init.name, info, bytes.data());
  }
}

TensorInfo GraphImporter::inputInfo(const onnxpb::ValueInfo &vi) const {
  const auto &shapes = ir_.getInputShapeInfo();
  if (shapes.has(vi.name)) return shapes.get(vi.name);
  if (!vi.hasType || !vi.type.hasTensorType)
    throw error("model input '{}' has no tensor type; provide its type and shape with InputShapeInfo", vi.name);
  if (!vi.type.hasShape)
    throw error("model input '{}' has no shape; provide it with InputShapeInfo", vi.name);
  Shape shape;
  for (const auto &d : vi.type.dims) {
    if (!d.hasValue)
      throw error("model input '{}' has the symbolic dimension '{}'; PopART needs static shapes: "
                  "provide the shape with InputShapeInfo", vi.name, d.param.empty() ? "?" : d.param);
    shape.push_back(d.value);
  }
  return TensorInfo(fromOnnxDataType(vi.type.elemType), shape);
}

void GraphImporter::importMain(const onnxpb::Graph &og) {
  addInitializers(og);
  for (const auto &vi : og.input)
    if (!g_.getTensors().contains(vi.name)) g_.getTensors().addStream(vi.name, inputInfo(vi));
  for (const auto &n : og.node) addNode(n);
  for (const auto &vo : og.output) g_.markAsOutput(vo.name);
}

void GraphImporter::importSubgraph(const onnxpb::Graph &og) {
  addInitializers(og);
  for (const auto &vi : og.input) g_.addInput(vi.name, inputInfo(vi));
  for (const auto &n : og.node) addNode(n);
  for (const auto &vo : og.output) g_.markAsOutput(vo.name);
}

Attributes::Value GraphImporter::convertAttribute(const onnxpb::Attribute &a, const std::string &nodeName) {
  using T = onnxpb::Attribute::Type;
  switch (a.type) {
  case T::Float: return a.f;
  case T::Int: return a.i;
  case T::String: return a.s;
  case T::Floats: return a.floats;
  case T::Ints: return a.ints;
  case T::Strings: return a.strings;
  case T::Tensor: {
    TensorInfo info = tensorInfoOf(a.t);
    return Attributes::Tensor{info, tensorBytes(a.t, info)};
  }
  case T::Graph: {
    GraphId id = ir_.createIntermediateTensorId(nodeName + "/" + a.name);
    GraphImporter(ir_, ir_.createGraph(id)).importSubgraph(*a.g);
    return Attributes::Graph{id};
  }
  default:
    throw error("attribute '{}' has ONNX type {}, which popart does not support", a.name,
                static_cast<int>(a.type));
  }
}

Attributes GraphImporter::convertAttributes(const onnxpb::Node &n, Op::Settings &s) {
  Attributes attrs;
  for (const auto &a : n.attribute) {
    if (a.name == "__ipu_number") s.vgraphId = a.i;
    else if (a.name == "__pipeline_stage") s.pipelineStage = a.i;
    else if (a.name == "__execution_phase") s.executionPhase = a.i;
    else if (a.name == "__recompute_output_in_backward_pass") s.recomputeType = static_cast<RecomputeType>(a.i);
    else if (a.name == "__schedule_priority") s.schedulePriority = a.type == onnxpb::Attribute::Type::Int ? static_cast<float>(a.i) : a.f;
    else if (a.name == "__available_memory_proportion") s.availableMemoryProportion = a.f;
    else if (a.name == "__partials_type") s.partialsType = a.s;
    else if (a.name == "__exclude_patterns") s.excludePatterns = a.strings;
    else if (a.name.rfind("__", 0) == 0) continue;  // other builder annotations
    else attrs.setAttribute(a.name, convertAttribute(a, n.name.empty() ? n.opType : n.name));
  }
  return attrs;
}

void GraphImporter::addConstantNode(const onnxpb::Node &n) {
  if (n.output.size() != 1) throw error("Constant node must have one output");
  Op::Settings s(g_, n.name);
  Attributes a = convertAttributes(n, s);
  TensorInfo info;
  std::vector<char> bytes;
  auto scalar = [&](DataType t, const void *p, int64_t count, Shape shape) {
    info = TensorInfo(t, shape);
    bytes.assign(static_cast<const char *>(p), static_cast<const char *>(p) + count * dataTypeSize(t));
  };
  if (a.hasAttribute("value")) {
    const auto &t = a.getAttribute<Attributes::Tensor>("value");
    info = t.info;
    bytes = t.data;
  } else if (a.hasAttribute("value_float")) {
    float v = a.getAttribute<Attributes::Float>("value_float");
    scalar(DataType::FLOAT, &v, 1, {});
  } else if (a.hasAttribute("value_int")) {
    int64_t v = a.getAttribute<Attributes::Int>("value_int");
    scalar(DataType::INT64, &v, 1, {});
  } else if (a.hasAttribute("value_floats")) {
    const auto &v = a.getAttribute<Attributes::Floats>("value_floats");
    scalar(DataType::FLOAT, v.data(), static_cast<int64_t>(v.size()), {static_cast<int64_t>(v.size())});
  } else if (a.hasAttribute("value_ints")) {
    const auto &v = a.getAttribute<Attributes::Ints>("value_ints");
    scalar(DataType::INT64, v.data(), static_cast<int64_t>(v.size()), {static_cast<int64_t>(v.size())});
  } else {
    throw error("Constant node '{}' needs one of value, value_float(s), value_int(s) "
                "(sparse and string values are not supported)", n.name);
  }
  g_.getTensors().addConstInit(n.output[0], info, bytes.data());
}

void GraphImporter::addNode(const onnxpb::Node &n) {
  std::string domain = n.domain.empty() ? Domain::ai_onnx : n.domain;
  if (domain == Domain::ai_onnx && n.opType == "Constant") return addConstantNode(n);
  try {
    Op::Settings settings(g_, n.name);
    Attributes attrs = convertAttributes(n, settings);
    int64_t opset = ir_.getOpSetVersion(domain);
    Op *op = g_.moveIntoGraph(OpManager::createOp(domain, n.opType, opset, settings, attrs));
    std::map<InIndex, TensorId> ins;
    std::map<OutIndex, TensorId> outs;
    for (size_t i = 0; i < n.input.size(); ++i)
      if (!n.input[i].empty()) ins[static_cast<InIndex>(i)] = n.input[i];
    for (size_t i = 0; i < n.output.size(); ++i)
      if (!n.output[i].empty()) outs[static_cast<OutIndex>(i)] = n.output[i];
    g_.connectAndSetup(op, ins, outs);
    foldIfConstant(*op);
  } catch (const internal_error &) {
    throw;
  } catch (const error &e) {
    throw error("cannot import node {}: {}", nodeLabel(n), e.what());
  }
}

} // namespace

void importModel(Ir &ir) {
  const onnxpb::Model *m = ir.getModel();
  if (!m || !m->hasGraph) throw error("the ONNX model has no graph");
  GraphImporter(ir, ir.getMainGraph()).importMain(m->graph);
  logging::ir::info("imported ONNX model: {} ops, {} tensors", ir.getMainGraph().getOps().size(),
                    ir.getMainGraph().getTensors().n());
}

} // namespace popart
