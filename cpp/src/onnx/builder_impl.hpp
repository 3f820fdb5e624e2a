// BuilderImpl: the ONNX model behind a popart::Builder. One per graph; a root
// and its sub-graph builders share tensor-id uniqueness and opset versions.
#pragma once
#include "onnx/model.hpp"
#include "popart/builder.hpp"
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace popart {

struct OpSchema;

/// State shared by a root builder and all its sub-graph builders.
struct BuilderShared {
  std::set<TensorId> usedIds;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version in use
  int defaultOnnxOpset = 11;
  int graphCounter = 0;
};

class BuilderImpl {
public:
  BuilderImpl(std::shared_ptr<BuilderShared> shared, const BuilderImpl *parent);

  /// Replaces the (empty) model by a loaded one and registers its names.
  void loadModel(onnxpb::Model model);
  /// The model to serialise: opset imports, IR version, typed outputs.
  onnxpb::Model exportModel() const;
  /// This builder's graph as embedded in a parent's node attribute.
  onnxpb::Graph exportGraph() const;
  /// The graph of a sub-graph builder referenced by a node attribute.
  static onnxpb::Graph subgraphOf(const SubgraphRef &ref);
  onnxpb::Graph &graph() { return model_.graph; }
  const onnxpb::Graph &graph() const { return model_.graph; }
  onnxpb::Model &model() { return model_; }
  BuilderShared &shared() { return *shared_; }
  std::shared_ptr<BuilderShared> sharedPtr() const { return shared_; }
  const BuilderShared &shared() const { return *shared_; }

  // ---- tensors ----
  TensorId addInput(const TensorInfo *info, const std::string &name);
  void addInputFromParent(const TensorId &id);
  TensorId addInitializer(const TensorInfo &info, const void *data, const std::string &name);
  void addOutput(const TensorId &id);
  bool hasTensor(const TensorId &id) const;  // here or in an enclosing graph
  bool hasLocalTensor(const TensorId &id) const;
  /// Value info of `id` with a type (inputs, outputs, value_info), or nullptr.
  const onnxpb::ValueInfo *findTypedValueInfo(const TensorId &id) const;
  void setValueInfo(const TensorId &id, const TensorInfo &info);
  const onnxpb::Tensor *findInitializer(const TensorId &id) const;
  onnxpb::Tensor *findInitializer(const TensorId &id);

  // ---- nodes ----
  /// Adds a node; `schema` (may be null for custom ops) validates inputs,
  /// output count and attributes, and gives the opset to require.
  std::vector<TensorId> addNode(const std::string &domain, const std::string &opType, int version,
                                const OpSchema *schema, const std::vector<TensorId> &inputs,
                                int numOutputs, const NodeAttributes &attributes,
                                const std::string &name);
  /// The unique node producing all of `outputs`; throws naming them otherwise.
  onnxpb::Node &findNode(const std::set<TensorId> &outputs);
  const onnxpb::Node &findNode(const std::set<TensorId> &outputs) const;
  void requireOpset(const std::string &domain, int64_t version);

  // ---- current attributes and name scopes ----
  std::map<std::string, NodeAttribute> current;
  std::vector<std::string> scopes;
  std::string scopedName(const std::string &name) const;

  /// Registers a fresh id made from `base` ("base", "base/1", ...).
  TensorId uniqueId(const std::string &base);

private:
  std::vector<TensorId> uniqueOutputIds(const std::string &base, int n);
  void checkInputs(const std::string &opType, const OpSchema *schema,
                   const std::vector<TensorId> &inputs) const;

  std::shared_ptr<BuilderShared> shared_;
  const BuilderImpl *parent_;
  onnxpb::Model model_;
};

/// NodeAttribute <-> onnxpb::Attribute. Graph references are copied in.
onnxpb::Attribute toOnnxAttribute(const std::string &name, const NodeAttribute &value);
NodeAttribute fromOnnxAttribute(const onnxpb::Attribute &attr);
/// Checks `value` against the schema's attribute type, converting where PopART
/// does (int -> float, empty list -> any list type); throws naming op and attribute.
NodeAttribute coerceAttribute(const OpSchema &schema, int opset, const std::string &name,
                              const NodeAttribute &value);
/// ONNX IR version matching an ai.onnx opset (onnx.helper.VERSION_TABLE).
int64_t irVersionForOpset(int64_t onnxOpset);
onnxpb::TypeProto typeProtoOf(const TensorInfo &info);

} // namespace popart
