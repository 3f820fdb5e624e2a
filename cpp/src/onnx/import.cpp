// Builds IR graphs from an ONNX model: initializers, inputs, nodes (through
// the op registry at the model's opset), constant folding as nodes arrive.
// Sub-graphs (If/Loop/Scan/Call) become separate IR graphs; the tensors of
// enclosing graphs they read by name become explicit extra inputs.
#include "import.hpp"
#include "compile_time_inputs.hpp"
#include "model.hpp"
#include "ops/controlflow.hpp"
#include "popart/error.hpp"
#include "popart/optimizer.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/opmanager.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "popart/variablesettings.hpp"
#include "transforms/constfold.hpp"
#include <algorithm>

namespace popart {
namespace {

// A graph attribute of the node being imported: its IR graph is created
// (empty) with the attributes, and filled once the op exists.
struct PendingSubgraph {
  std::string attribute;
  const onnxpb::Graph *proto;
  GraphId id;
};

class GraphImporter {
public:
  GraphImporter(Ir &ir, Graph &g, GraphImporter *parent = nullptr) : ir_(ir), g_(g), parent_(parent) {}
  void importMain(const onnxpb::Graph &og);
  /// `inputInfos` (unset entries: none) override the inputs' declared types where they differ.
  void importSubgraph(const onnxpb::Graph &og, const std::vector<TensorInfo> &inputInfos);
  /// Outer-scope tensors the graph reads, in first-use order (not yet graph inputs).
  const std::vector<TensorId> &captured() const { return captured_; }

private:
  void addInitializers(const onnxpb::Graph &og);
  TensorInfo inputInfo(const onnxpb::ValueInfo &vi, const char *what) const;
  TensorInfo subgraphInputInfo(const onnxpb::ValueInfo &vi, const TensorInfo &fromOp) const;
  bool resolve(const TensorId &id);
  void addNode(const onnxpb::Node &n);
  void addConstantNode(const onnxpb::Node &n);
  std::vector<TensorId> importSubgraphs(const onnxpb::Node &n, Op &op);
  Attributes convertAttributes(const onnxpb::Node &n, Op::Settings &settings);
  Attributes::Value convertAttribute(const onnxpb::Attribute &a, const std::string &nodeName);

  Ir &ir_;
  Graph &g_;
  GraphImporter *parent_;               // the importer of the enclosing graph (sub-graphs only)
  std::vector<TensorId> captured_;
  std::vector<PendingSubgraph> pending_;  // graph attributes of the node being imported
};

std::string nodeLabel(const onnxpb::Node &n) {
  return n.opType + (n.name.empty() ? "" : " '" + n.name + "'") +
         (n.output.empty() ? "" : " (output '" + n.output[0] + "')");
}

void GraphImporter::addInitializers(const onnxpb::Graph &og) {
  auto operands = compileTimeInitializers(og, [this](const std::string &d) { return ir_.getOpSetVersion(d); });
  const auto grouped = parent_ ? std::map<TensorId, VariableSettings>{} : nonDefaultVariableSettings(ir_);
  const auto replicas = static_cast<unsigned>(ir_.getSessionOptions().getGlobalReplicationFactor());
  for (const auto &init : og.initializer) {
    TensorInfo info = tensorInfoOf(init);
    auto bytes = tensorBytes(init, info);
    auto vs = grouped.find(init.name);
    if (vs != grouped.end()) {  // one value per group of replicas: [groups, *shape] on the host
      if (!isFloatingPoint(info.dataType()) || operands.count(init.name))
        throw error("initializer '{}' has {}, but only floating-point weights can hold a value per group of "
                    "replicas (it is {})", init.name, vs->second.str(),
                    operands.count(init.name) ? "read as a compile-time operand" : "of type " + info.data_type());
      info = TensorInfo(info.dataType(), vs->second.shapeOnReplica(info.shape(), replicas, init.name));
      g_.getTensors().addVarInit(init.name, info, bytes.data());
      g_.getTensor(init.name)->setTensorData(std::move(bytes));
      continue;
    }
    if (!parent_ && isOptimizerStateId(init.name)) {
      ir_.savedOptimizerState()[init.name] = std::move(bytes);
      continue;
    }
    // Float initializers of the main graph are weights (Variables), unless a
    // node reads them as a compile-time operand (Dropout ratio, Clip bounds,
    // Resize scales, ...); integer ones are constants. Sub-graph initializers
    // are constants (they are not model weights).
    if (isFloatingPoint(info.dataType()) && !parent_ && !operands.count(init.name))
      g_.getTensors().addVarInit(init.name, info, bytes.data());
    else
      g_.getTensors().addConstInit(init.name, info, bytes.data());
  }
}

TensorInfo GraphImporter::inputInfo(const onnxpb::ValueInfo &vi, const char *what) const {
  const auto &shapes = ir_.getInputShapeInfo();
  if (shapes.has(vi.name)) return shapes.get(vi.name);
  if (!vi.hasType || !vi.type.hasTensorType)
    throw error("{} '{}' has no tensor type; provide its type and shape with InputShapeInfo", what, vi.name);
  if (!vi.type.hasShape)
    throw error("{} '{}' has no shape; provide it with InputShapeInfo", what, vi.name);
  Shape shape;
  for (const auto &d : vi.type.dims) {
    if (!d.hasValue)
      throw error("{} '{}' has the symbolic dimension '{}'; PopART needs static shapes: "
                  "provide the shape with InputShapeInfo", what, vi.name, d.param.empty() ? "?" : d.param);
    shape.push_back(d.value);
  }
  return TensorInfo(fromOnnxDataType(vi.type.elemType), shape);
}

// The op knows what it passes (`fromOp`); a fully declared input shape with
// the same element count is kept (a [1] standing for a scalar), others are
// taken from the op.
TensorInfo GraphImporter::subgraphInputInfo(const onnxpb::ValueInfo &vi, const TensorInfo &fromOp) const {
  if (!fromOp.isSet()) return inputInfo(vi, "sub-graph input");
  bool typed = vi.hasType && vi.type.hasTensorType && vi.type.elemType != 0;
  if (typed && fromOnnxDataType(vi.type.elemType) != fromOp.dataType())
    throw error("sub-graph input '{}' is declared as {} but the op passes {}", vi.name,
                TensorInfo(fromOnnxDataType(vi.type.elemType), {}).data_type(), fromOp.toString());
  bool staticShape = typed && vi.type.hasShape;
  Shape declared;
  for (const auto &d : vi.type.dims) {
    staticShape = staticShape && d.hasValue;
    declared.push_back(d.value);
  }
  if (!staticShape) return fromOp;
  TensorInfo info(fromOp.dataType(), declared);
  if (info.nelms() != fromOp.nelms())
    throw error("sub-graph input '{}' is declared with shape {} but the op passes {}", vi.name, declared,
                fromOp.toString());
  return info;
}

// Makes `id` a tensor of this graph: already here, or found in an enclosing
// graph. Constants are copied in (so shape inputs stay constant); any other
// outer tensor becomes a captured tensor that the owning node turns into a
// graph input.
bool GraphImporter::resolve(const TensorId &id) {
  if (g_.getTensors().contains(id)) return true;
  if (!parent_ || !parent_->resolve(id)) return false;
  const Tensor *outer = parent_->g_.getTensor(id);
  if (outer->tensorType() == TensorType::Const && outer->hasTensorData()) {
    g_.getTensors().addConstInit(id, outer->info, outer->tensorData().data());
  } else {
    g_.getTensors().addActGrad(id)->info = outer->info;
    captured_.push_back(id);
  }
  return true;
}

void GraphImporter::importMain(const onnxpb::Graph &og) {
  addInitializers(og);
  for (const auto &vi : og.input)
    if (!g_.getTensors().contains(vi.name)) g_.getTensors().addStream(vi.name, inputInfo(vi, "model input"));
  for (const auto &n : og.node) addNode(n);
  for (const auto &vo : og.output) g_.markAsOutput(vo.name);
}

void GraphImporter::importSubgraph(const onnxpb::Graph &og, const std::vector<TensorInfo> &inputInfos) {
  addInitializers(og);
  for (size_t i = 0; i < og.input.size(); ++i) {
    const auto &vi = og.input[i];
    if (g_.getTensors().contains(vi.name)) continue;  // an initializer listed as input (IR < 4)
    g_.addInput(vi.name, subgraphInputInfo(vi, i < inputInfos.size() ? inputInfos[i] : TensorInfo()));
  }
  for (const auto &n : og.node) addNode(n);
  for (const auto &vo : og.output) {
    if (!resolve(vo.name))
      throw error("output '{}' of sub-graph '{}' is not produced in it or in an enclosing graph", vo.name, og.name);
    g_.markAsOutput(vo.name);
  }
}

// Imports the graph attributes of `n` (op `op` is created but not connected),
// typing their inputs through the op. Returns the union of the tensors they
// capture, appended as the last inputs of every one of these sub-graphs.
std::vector<TensorId> GraphImporter::importSubgraphs(const onnxpb::Node &n, Op &op) {
  auto pending = std::move(pending_);
  pending_.clear();
  auto *sop = dynamic_cast<SubgraphOp *>(&op);
  std::vector<TensorInfo> ins(n.input.size());
  for (size_t i = 0; i < n.input.size(); ++i)
    if (!n.input[i].empty() && resolve(n.input[i])) ins[i] = g_.getTensor(n.input[i])->info;
  std::vector<std::unique_ptr<GraphImporter>> subs;
  std::vector<TensorId> all;
  for (const auto &p : pending) {
    auto infos = sop ? sop->subgraphInputInfos(p.attribute, ins) : std::vector<TensorInfo>{};
    subs.push_back(std::make_unique<GraphImporter>(ir_, ir_.getGraph(p.id), this));
    try {
      subs.back()->importSubgraph(*p.proto, infos);
    } catch (const internal_error &) {
      throw;
    } catch (const error &e) {
      throw error("in sub-graph '{}': {}", p.attribute, e.what());
    }
    for (const auto &id : subs.back()->captured())
      if (std::find(all.begin(), all.end(), id) == all.end()) all.push_back(id);
  }
  if (!all.empty() && !sop)
    throw error("its sub-graphs read tensors of enclosing graphs ({}), which popart supports only for "
                "If, Loop, Scan and Call", all);
  for (size_t k = 0; k < pending.size(); ++k) {
    Graph &sg = ir_.getGraph(pending[k].id);
    for (const auto &id : all) {
      if (sg.getTensors().contains(id)) sg.markAsInput(id);
      else sg.addInput(id, g_.getTensor(id)->info);  // unused by this sub-graph
    }
  }
  if (sop) op.attributes().setAttribute(kImplicitInputsAttribute, static_cast<int64_t>(all.size()));
  return all;
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
    if (!a.g) throw error("attribute '{}' has type GRAPH but holds no graph", a.name);
    GraphId id = ir_.createIntermediateTensorId(nodeName + "/" + a.name);
    ir_.createGraph(id);
    pending_.push_back({a.name, a.g.get(), id});
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
    else if (a.name == "__collectiveOperator" || a.name == "__collectiveCommGroup" ||
             a.name == "__collectiveReplicaGrouping" ||
             a.name == "__collectiveReplicaGroupingReplicas")  // read by collective ops
      attrs.setAttribute(a.name, convertAttribute(a, n.name.empty() ? n.opType : n.name));
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
  pending_.clear();
  try {
    Op::Settings settings(g_, n.name);
    Attributes attrs = convertAttributes(n, settings);
    int64_t opset = ir_.getOpSetVersion(domain);
    Op *op = g_.moveIntoGraph(OpManager::createOp(domain, n.opType, opset, settings, attrs));
    std::vector<TensorId> implicit = importSubgraphs(n, *op);
    std::map<InIndex, TensorId> ins;
    std::map<OutIndex, TensorId> outs;
    for (size_t i = 0; i < n.input.size(); ++i)
      if (!n.input[i].empty()) {
        resolve(n.input[i]);
        ins[static_cast<InIndex>(i)] = n.input[i];
      }
    for (size_t k = 0; k < implicit.size(); ++k) ins[static_cast<InIndex>(n.input.size() + k)] = implicit[k];
    for (size_t i = 0; i < n.output.size(); ++i)
      if (!n.output[i].empty()) outs[static_cast<OutIndex>(i)] = n.output[i];
    g_.connectAndSetup(op, ins, outs);
    foldIfConstant(*op);
  } catch (const internal_error &) {
    throw;
  } catch (const memory_allocation_err &e) {  // keeps its class: popart_memory_allocation_error in Python
    throw memory_allocation_err("cannot import node {}: {}", nodeLabel(n), e.what());
  } catch (const error &e) {
    throw error("cannot import node {}: {}", nodeLabel(n), e.what());
  }
}

} // namespace

void importModel(Ir &ir) {
  const onnxpb::Model *m = ir.getModel();
  if (!m) throw error("the ONNX model has no graph");
  importModel(ir, *m);
}

void importModel(Ir &ir, const onnxpb::Model &source) {
  if (!source.hasGraph) throw error("the ONNX model has no graph");
  GraphImporter(ir, ir.getMainGraph()).importMain(source.graph);
  logging::ir::info("imported ONNX model: {} ops, {} tensors", ir.getMainGraph().getOps().size(),
                    ir.getMainGraph().getTensors().n());
}

} // namespace popart
