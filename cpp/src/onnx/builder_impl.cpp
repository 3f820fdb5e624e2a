// BuilderImpl: tensor ids, graph inputs/outputs/initialisers and schema-checked
// nodes of the ONNX model behind a Builder.
#include "onnx/builder_impl.hpp"
#include "onnx/import.hpp"
#include "onnx/op_schema.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <cstring>

namespace popart {

int64_t irVersionForOpset(int64_t onnxOpset) {
  if (onnxOpset <= 8) return 3;
  if (onnxOpset == 9) return 4;
  if (onnxOpset == 10) return 5;
  if (onnxOpset == 11) return 6;
  if (onnxOpset <= 14) return 7;  // ONNX's release table: the IR version each opset came with
  if (onnxOpset <= 18) return 8;
  if (onnxOpset <= 20) return 9;
  return 10;
}

onnxpb::TypeProto typeProtoOf(const TensorInfo &info) {
  onnxpb::TypeProto t;
  t.hasTensorType = true;
  t.elemType = onnxDataType(info.dataType());
  t.hasShape = true;
  for (auto d : info.shape()) {
    onnxpb::Dimension dim;
    dim.hasValue = true;
    dim.value = d;
    t.dims.push_back(dim);
  }
  return t;
}

BuilderImpl::BuilderImpl(std::shared_ptr<BuilderShared> shared, const BuilderImpl *parent)
    : shared_(std::move(shared)), parent_(parent) {
  model_.hasGraph = true;
  int n = shared_->graphCounter++;
  model_.graph.name = n == 0 ? "BuilderGraph" : "BuilderGraph_" + std::to_string(n);
}

void BuilderImpl::loadModel(onnxpb::Model model) {
  model_ = std::move(model);
  model_.hasGraph = true;
  auto &ids = shared_->usedIds;
  for (const auto &v : model_.graph.input) ids.insert(v.name);
  for (const auto &t : model_.graph.initializer) ids.insert(t.name);
  for (const auto &n : model_.graph.node) ids.insert(n.output.begin(), n.output.end());
  for (const auto &o : model_.opsetImport) {
    auto domain = o.domain == "ai.onnx" ? std::string() : o.domain;
    shared_->opsets[domain] = o.version;
  }
}

std::string BuilderImpl::scopedName(const std::string &name) const {
  std::string s;
  for (const auto &scope : scopes) s += scope + "/";
  return s + name;
}

TensorId BuilderImpl::uniqueId(const std::string &base) {
  auto &ids = shared_->usedIds;
  TensorId id = base;
  for (int k = 1; ids.count(id); ++k) id = base + "/" + std::to_string(k);
  ids.insert(id);
  return id;
}

std::vector<TensorId> BuilderImpl::uniqueOutputIds(const std::string &base, int n) {
  auto &ids = shared_->usedIds;
  for (int k = 0;; ++k) {
    std::vector<TensorId> out;
    for (int i = 0; i < n; ++i) {
      auto id = base + ":" + std::to_string(i);
      out.push_back(k == 0 ? id : id + "/" + std::to_string(k));
    }
    bool free = std::none_of(out.begin(), out.end(), [&](const TensorId &id) { return ids.count(id); });
    if (free) {
      ids.insert(out.begin(), out.end());
      return out;
    }
  }
}

bool BuilderImpl::hasLocalTensor(const TensorId &id) const {
  const auto &g = model_.graph;
  auto named = [&id](const auto &x) { return x.name == id; };
  if (std::any_of(g.input.begin(), g.input.end(), named)) return true;
  if (std::any_of(g.initializer.begin(), g.initializer.end(), named)) return true;
  return std::any_of(g.node.begin(), g.node.end(), [&id](const onnxpb::Node &n) {
    return std::find(n.output.begin(), n.output.end(), id) != n.output.end();
  });
}

bool BuilderImpl::hasTensor(const TensorId &id) const {
  return hasLocalTensor(id) || (parent_ && parent_->hasTensor(id));
}

const onnxpb::ValueInfo *BuilderImpl::findTypedValueInfo(const TensorId &id) const {
  const auto &g = model_.graph;
  for (const auto *list : {&g.input, &g.output, &g.valueInfo}) {
    for (const auto &v : *list) {
      if (v.name == id && v.hasType && v.type.hasTensorType && v.type.elemType != 0) return &v;
    }
  }
  return nullptr;
}

void BuilderImpl::setValueInfo(const TensorId &id, const TensorInfo &info) {
  auto &vis = model_.graph.valueInfo;
  auto it = std::find_if(vis.begin(), vis.end(), [&id](const auto &v) { return v.name == id; });
  if (it == vis.end()) it = vis.insert(vis.end(), onnxpb::ValueInfo{});
  it->name = id;
  it->hasType = true;
  it->type = typeProtoOf(info);
}

const onnxpb::Tensor *BuilderImpl::findInitializer(const TensorId &id) const {
  for (const auto &t : model_.graph.initializer) {
    if (t.name == id) return &t;
  }
  return nullptr;
}

onnxpb::Tensor *BuilderImpl::findInitializer(const TensorId &id) {
  return const_cast<onnxpb::Tensor *>(std::as_const(*this).findInitializer(id));
}

TensorId BuilderImpl::addInput(const TensorInfo *info, const std::string &name) {
  if (info && !info->isSet()) throw error("addInputTensor: the TensorInfo of '{}' has no data type", name);
  onnxpb::ValueInfo v;
  v.name = uniqueId(scopedName(name.empty() ? "input" : name));
  if (info) {
    v.hasType = true;
    v.type = typeProtoOf(*info);
  }
  model_.graph.input.push_back(v);
  return v.name;
}

void BuilderImpl::addInputFromParent(const TensorId &id) {
  if (!parent_) throw error("addInputTensorFromParentGraph('{}'): this builder has no parent graph", id);
  if (!parent_->hasTensor(id)) {
    throw error("addInputTensorFromParentGraph: tensor '{}' is not in the parent graph '{}'", id,
                parent_->graph().name);
  }
  onnxpb::ValueInfo v;
  v.name = id;
  if (const auto *pv = parent_->findTypedValueInfo(id)) v = *pv;
  model_.graph.input.push_back(v);
}

TensorId BuilderImpl::addInitializer(const TensorInfo &info, const void *data, const std::string &name) {
  if (!info.isSet()) throw error("addInitializedInputTensor: no data type for '{}'", name);
  onnxpb::Tensor t;
  t.name = uniqueId(scopedName(name.empty() ? "init_input" : name));
  t.dims = info.shape();
  t.dataType = onnxDataType(info.dataType());
  t.hasRawData = true;
  t.rawData = packedRawData(info, data);
  model_.graph.initializer.push_back(t);
  onnxpb::ValueInfo v;
  v.name = t.name;
  v.hasType = true;
  v.type = typeProtoOf(info);
  model_.graph.input.push_back(v);
  return t.name;
}

void BuilderImpl::addOutput(const TensorId &id) {
  if (!hasTensor(id)) throw error("addOutputTensor: unknown tensor id '{}'", id);
  onnxpb::ValueInfo v;
  v.name = id;
  if (const auto *known = findTypedValueInfo(id)) v.hasType = true, v.type = known->type;
  model_.graph.output.push_back(v);
}

void BuilderImpl::requireOpset(const std::string &domain, int64_t version) {
  auto d = domain == "ai.onnx" ? std::string() : domain;
  auto it = shared_->opsets.find(d);
  if (it == shared_->opsets.end()) {
    shared_->opsets[d] = version;
  } else if (it->second != version) {
    throw error("Invalid opset version {} for domain '{}': the model already uses version {}",
                version, d.empty() ? "ai.onnx" : d, it->second);
  }
}

void BuilderImpl::checkInputs(const std::string &opType, const OpSchema *schema,
                              const std::vector<TensorId> &inputs) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) continue;  // an omitted optional input
    if (!hasTensor(inputs[i])) {
      throw error("{}: input {} '{}' is not a tensor of graph '{}' (unknown tensor id)", opType, i,
                  inputs[i], model_.graph.name);
    }
  }
  if (!schema) return;
  int n = static_cast<int>(inputs.size());
  if (n < schema->minInputs || n > schema->maxInputs) {
    throw error("{} (opset {}) expects {} to {} inputs, got {}", opType, schema->sinceVersion,
                schema->minInputs, schema->maxInputs, n);
  }
}

std::vector<TensorId> BuilderImpl::addNode(const std::string &domain, const std::string &opType,
                                           int version, const OpSchema *schema,
                                           const std::vector<TensorId> &inputs, int numOutputs,
                                           const NodeAttributes &attributes, const std::string &name) {
  checkInputs(opType, schema, inputs);
  onnxpb::Node node;
  node.opType = opType;
  node.domain = domain == "ai.onnx" ? std::string() : domain;
  node.input = inputs;
  if (schema) {
    if (numOutputs < 0) numOutputs = schema->minOutputs;
    if (numOutputs < schema->minOutputs || numOutputs > schema->maxOutputs) {
      throw error("{} (opset {}) has {} to {} outputs, {} requested", opType, version,
                  schema->minOutputs, schema->maxOutputs, numOutputs);
    }
    for (const auto &a : schema->attributes) {
      if (a.required && !attributes.count(a.name)) {
        throw error("{} (opset {}) requires attribute '{}'", opType, version, a.name);
      }
    }
  }
  for (const auto &[attrName, value] : attributes) {
    auto v = schema ? coerceAttribute(*schema, version, attrName, value) : value;
    node.attribute.push_back(toOnnxAttribute(attrName, v));
  }
  for (const auto &[attrName, value] : current) {
    if (!attributes.count(attrName)) node.attribute.push_back(toOnnxAttribute(attrName, value));
  }
  requireOpset(domain, version);
  auto base = scopedName(name.empty() ? opType : name);
  node.output = uniqueOutputIds(base, std::max(numOutputs, 0));
  if (!name.empty()) node.name = base;
  model_.graph.node.push_back(node);
  return node.output;
}

onnxpb::Node &BuilderImpl::findNode(const std::set<TensorId> &outputs) {
  return const_cast<onnxpb::Node &>(std::as_const(*this).findNode(outputs));
}

const onnxpb::Node &BuilderImpl::findNode(const std::set<TensorId> &outputs) const {
  if (outputs.empty()) throw error("no node output names given to find a node");
  const onnxpb::Node *found = nullptr;
  for (const auto &n : model_.graph.node) {
    bool all = std::all_of(outputs.begin(), outputs.end(), [&n](const TensorId &id) {
      return std::find(n.output.begin(), n.output.end(), id) != n.output.end();
    });
    if (!all) continue;
    if (found) throw error("more than one node has outputs {}", std::vector<TensorId>(outputs.begin(), outputs.end()));
    found = &n;
  }
  if (!found) {
    throw error("no node of graph '{}' has outputs {}", model_.graph.name,
                std::vector<TensorId>(outputs.begin(), outputs.end()));
  }
  return *found;
}

onnxpb::Graph BuilderImpl::exportGraph() const {
  onnxpb::Graph g = model_.graph;
  for (auto &out : g.output) {
    if (out.hasType) continue;
    if (const auto *v = findTypedValueInfo(out.name)) out.hasType = true, out.type = v->type;
  }
  return g;
}

onnxpb::Graph BuilderImpl::subgraphOf(const SubgraphRef &ref) {
  if (!ref.builder) throw error("a graph attribute refers to no builder");
  return ref.builder->impl_->exportGraph();
}

onnxpb::Model BuilderImpl::exportModel() const {
  onnxpb::Model m = model_;
  m.graph = exportGraph();
  if (m.producerName.empty()) m.producerName = "popart-cpu";
  auto opsets = shared_->opsets;
  if (!opsets.count("")) opsets[""] = shared_->defaultOnnxOpset;
  m.opsetImport.clear();
  for (const auto &[domain, version] : opsets) {
    onnxpb::OperatorSetId o;
    o.domain = domain;
    o.version = version;
    m.opsetImport.push_back(o);
  }
  m.irVersion = std::max(m.irVersion, irVersionForOpset(opsets[""]));
  return m;
}

} // namespace popart
