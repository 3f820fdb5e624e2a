// popart::Builder: builds an ONNX ModelProto (inputs, initialisers, ops of any
// opset the op table knows, custom ops, sub-graphs) and the PopART node
// annotations (virtual graph, pipeline stage, ...) stored as "__" attributes.
#pragma once
#include "popart/debugcontext.hpp"
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/voiddata.hpp"
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace popart {

class Builder;
class BuilderImpl;
struct InputSettings;
struct TensorLocation;
class VariableSettings;
enum class RecomputeType;     // op.hpp: Undefined = 0, Checkpoint, Recompute, Recomputed
enum class ExecutionContext;  // op.hpp

// Node attributes PopART reserves for its annotations (read back by the ONNX importer).
inline constexpr const char *sVirtualGraphAttribute = "__ipu_number";
inline constexpr const char *sPipelineStageAttribute = "__pipeline_stage";
inline constexpr const char *sExecutionPhaseAttribute = "__execution_phase";
inline constexpr const char *sExecutionContextAttribute = "__execution_context";
inline constexpr const char *sRecomputeOutputAttribute = "__recompute_output_in_backward_pass";
inline constexpr const char *sOutputTensorLocationAttribute = "__output_tensor_location";
inline constexpr const char *sSchedulePriority = "__schedule_priority";
inline constexpr const char *sAvailMemAttribute = "__available_memory_proportion";
inline constexpr const char *sPartialsTypeAttribute = "__partials_type";
inline constexpr const char *sEnableConvDitheringAttribute = "__enable_conv_dithering";
inline constexpr const char *sSerializeMatMulModeAttribute = "__serialize_matmul_mode";
inline constexpr const char *sSerializeMatMulFactorAttribute = "__serialize_matmul_factor";
inline constexpr const char *sSerializeMatMulPrecisionAttribute = "__serialize_matmul_precision";
inline constexpr const char *sInplaceOpNames = "__inplace_op_names";
inline constexpr const char *sInplaceOpPriorities = "__inplace_op_priorities";
inline constexpr const char *sExcludePatternsAttribute = "__exclude_patterns";
inline constexpr const char *sOutlineAttribute = "__outline";
inline constexpr const char *sCollectiveOperator = "__collectiveOperator";
inline constexpr const char *sCollectiveCommGroup = "__collectiveCommGroup";
/// Model metadata keys.
inline constexpr const char *sReplicationFactorMetadata = "replicationFactor";
inline constexpr const char *sInputSettingsMetadataPrefix = "__input_settings/";

/// Raw contents of a tensor-valued attribute (Constant's value).
struct ConstTensorData {
  TensorInfo info;
  std::string bytes;  // nelms * element size, little endian
};
/// A graph-valued attribute: the builder of the sub-graph (its graph is copied
/// into the node when the node is added).
struct SubgraphRef {
  const Builder *builder = nullptr;
};

using NodeAttribute = std::variant<int64_t, std::vector<int64_t>, float, std::vector<float>,
                                   std::string, std::vector<std::string>, ConstTensorData,
                                   SubgraphRef, std::vector<SubgraphRef>>;
using NodeAttributes = std::map<std::string, NodeAttribute>;
std::string toString(const NodeAttribute &a);  // "INT 3", "INTS [1,2]", ...

/// Base of the per-opset interfaces (builder.gen.hpp): adds nodes of one
/// domain at one opset version to a Builder it does not own.
class DomainOpSet {
public:
  DomainOpSet(Builder *builder, std::string domain, int version)
      : builder_(builder), domain_(std::move(domain)), version_(version) {}
  int getOpsetVersion() const { return version_; }

protected:
  std::vector<TensorId> addNode(const std::string &opType, const std::vector<TensorId> &args, int numOutputs,
                                const NodeAttributes &attributes, const DebugContext &debugContext);
  /// A copy of `value`'s bytes as a tensor attribute.
  static ConstTensorData constTensorData(const ConstVoidData &value);

private:
  Builder *builder_;
  std::string domain_;
  int version_;
};
class AiOnnxOpset6;
class AiOnnxOpset7;
class AiOnnxOpset8;
class AiOnnxOpset9;
class AiOnnxOpset10;
class AiOnnxOpset11;
class AiGraphcoreOpset1;

class Builder {
public:
  static std::unique_ptr<Builder> create();
  /// Loads a serialised ModelProto, or a file when the string names one.
  static std::unique_ptr<Builder> createFromOnnxModel(const std::string &modelProtoOrFilename);
  ~Builder();
  Builder(const Builder &) = delete;
  Builder &operator=(const Builder &) = delete;

  /// A child builder for a sub-graph (call/If/Loop/Scan); owned by this builder.
  Builder &createSubgraphBuilder();
  Builder *getParent() const { return parent_; }
  bool hasParent() const { return parent_ != nullptr; }

  // ---- graph inputs and outputs ----
  TensorId addInputTensor(const TensorInfo &info, const std::string &name = "");
  TensorId addInputTensor(const std::string &dataType, const Shape &shape, const std::string &name = "");
  TensorId addInputTensor(const TensorInfo &info, const InputSettings &settings, const std::string &name = "");
  TensorId addUntypedInputTensor(const std::string &name = "");
  /// Makes a tensor of an enclosing graph an input of this sub-graph.
  void addInputTensorFromParentGraph(const TensorId &id);
  /// `data` holds info.nbytes() bytes; they are copied.
  TensorId addInitializedInputTensor(const TensorInfo &info, const void *data, const std::string &name = "");
  TensorId addInitializedInputTensor(const TensorInfo &info, const void *data,
                                     const VariableSettings &settings, const std::string &name = "");
  /// PopART's form: the data and its info in one ConstVoidData (copied).
  TensorId addInitializedInputTensor(const ConstVoidData &initData, const DebugContext &debugContext = {});
  void addOutputTensor(const TensorId &id);

  // ---- per-opset interfaces (builder.gen.hpp): builder->aiOnnxOpset11().relu({x}) ----
  AiOnnxOpset6 aiOnnxOpset6();
  AiOnnxOpset7 aiOnnxOpset7();
  AiOnnxOpset8 aiOnnxOpset8();
  AiOnnxOpset9 aiOnnxOpset9();
  AiOnnxOpset10 aiOnnxOpset10();
  AiOnnxOpset11 aiOnnxOpset11();
  AiGraphcoreOpset1 aiGraphcoreOpset1();

  // ---- ops ----
  /// Adds a node checked against the op table at `opsetVersion`. numOutputs < 0:
  /// the schema's (minimum) output count. Returns the new output tensor ids.
  std::vector<TensorId> addOp(const std::string &domain, const std::string &opType, int opsetVersion,
                              const std::vector<TensorId> &inputs, int numOutputs = -1,
                              const NodeAttributes &attributes = {}, const std::string &name = "");
  /// Adds a node of any domain without schema checks (custom ops).
  std::vector<TensorId> customOp(const OperatorIdentifier &opid, int opsetVersion,
                                 const std::vector<TensorId> &inputs, unsigned numOutputs,
                                 const NodeAttributes &attributes, const std::string &name = "");
  /// Adds a Constant (ai.onnx) holding `data` and a Reshape of args[0] to `shape`.
  TensorId reshape_const(const std::vector<TensorId> &args, const Shape &shape,
                         const std::string &name = "");
  /// Adds an ai.onnx Constant node with the given contents.
  TensorId constant(const ConstTensorData &value, const std::string &name = "");
  /// Default ai.onnx opset used by reshape_const/constant and for empty models.
  void setDefaultOpsetVersion(int version);
  int getDefaultOpsetVersion() const;
  /// The opset version the model uses for `domain` (0 when it has no op of it yet).
  int64_t getOpsetVersion(const std::string &domain) const;

  // ---- the model ----
  std::string getModelProto() const;
  void saveModelProto(const std::string &filename) const;
  /// Marks initialisers to be written to `filename` (relative paths: relative to the
  /// model file's folder when saved, else the working directory).
  void saveInitializersExternally(const std::vector<TensorId> &ids, const std::string &filename);
  void setGraphName(const std::string &name);
  std::string getGraphName() const;
  void embedReplicationFactor(int replicationFactor);

  std::vector<TensorId> getInputTensorIds() const;
  std::vector<TensorId> getOutputTensorIds() const;
  std::vector<TensorId> getValueTensorIds() const;
  std::vector<TensorId> getTrainableTensorIds() const;
  bool hasValueInfo(const TensorId &id) const;
  /// Known shape/type (inputs, initialisers, outputs, value_info); throws otherwise.
  Shape getTensorShape(const TensorId &id) const;
  std::string getTensorDtypeString(const TensorId &id) const;  // "float32", "int64", ...
  DataType getTensorDataType(const TensorId &id) const;
  bool isInitializer(const TensorId &id) const;
  /// Records type/shape of a tensor in the graph's value_info (shape inference results).
  void setTensorInfo(const TensorId &id, const TensorInfo &info);
  /// Records the type and shape of every untyped tensor the ops of the model
  /// (built-in or custom, through their setup()) can infer.
  void inferTensorInfos();
  /// True when `id` is a tensor of this graph or, for sub-graphs, an enclosing one.
  bool hasTensor(const TensorId &id) const;

  // ---- attributes of existing nodes (found by their output ids) ----
  void addNodeAttribute(const std::string &name, const NodeAttribute &value,
                        const std::set<TensorId> &nodeOutputNames);
  bool nodeHasAttribute(const std::string &name, const std::set<TensorId> &nodeOutputNames) const;
  NodeAttribute getNodeAttribute(const std::string &name, const std::set<TensorId> &nodeOutputNames) const;
  int64_t getInt64NodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  std::vector<int64_t> getInt64VectorNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  float getFloatNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  std::vector<float> getFloatVectorNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  std::string getStringNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  std::vector<std::string> getStringVectorNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const;
  void removeNodeAttribute(const std::string &name, const std::set<TensorId> &nodeOutputNames);
  std::vector<std::string> getAllNodeAttributeNames(const std::set<TensorId> &nodeOutputNames) const;

  // ---- current attributes: attached to every node added while set ----
  void setAttribute(const std::string &name, const NodeAttribute &value);
  NodeAttribute getAttribute(const std::string &name) const;
  bool hasAttribute(const std::string &name) const;
  void clearAttribute(const std::string &name);
  void pushNameScope(const std::string &name);
  void popNameScope();
  /// The current scope prefix ("a/b/") followed by `name`.
  std::string getNameScope(const std::string &name = "") const;

  // ---- PopART annotations ----
  void virtualGraph(const TensorId &nodeOutputName, int64_t value = 0);
  void virtualGraph(const std::set<TensorId> &nodeOutputNames, int64_t value = 0);
  void pipelineStage(const TensorId &nodeOutputName, int64_t value);
  void pipelineStage(const std::set<TensorId> &nodeOutputNames, int64_t value);
  void executionPhase(const TensorId &nodeOutputName, int64_t value = 0);
  void executionPhase(const std::set<TensorId> &nodeOutputNames, int64_t value = 0);
  void recomputeOutput(const TensorId &nodeOutputName, RecomputeType value);
  void recomputeOutputInBackwardPass(const TensorId &nodeOutputName, RecomputeType value);
  void recomputeOutputInBackwardPass(const std::set<TensorId> &nodeOutputNames, RecomputeType value);
  bool getRecomputeOutputInBackwardPass(const TensorId &nodeOutputName) const;
  bool getRecomputeOutputInBackwardPass(const std::set<TensorId> &nodeOutputNames) const;
  /// Passes each tensor through a Nop marked Checkpoint; returns the new ids.
  std::vector<TensorId> checkpointOutput(const std::vector<TensorId> &nodeOutputNames);
  void outputTensorLocation(const TensorId &nodeOutputName, const TensorLocation &value);
  void setAvailableMemoryProportion(const TensorId &nodeOutputName, float proportion);
  void setAvailableMemoryProportion(const std::set<TensorId> &nodeOutputNames, float proportion);
  void setPartialsType(const TensorId &nodeOutputName, const std::string &partialsType);
  std::string getPartialsType(const TensorId &nodeOutputName) const;
  void setEnableConvDithering(const TensorId &nodeOutputName, int64_t value);
  void setInplacePreferences(const TensorId &nodeOutputName, const std::map<OpType, float> &prefs);
  void setSerializeMatMul(const std::set<TensorId> &nodeOutputNames, const std::string &mode,
                          int64_t factor = 0, bool keepPrecision = false);
  void excludePatterns(const TensorId &nodeOutputName, const std::vector<std::string> &patterns);
  void setExecutionContext(const TensorId &nodeOutputName, ExecutionContext value);
  int64_t getVirtualGraph() const;  // current attribute; throws when unset
  int64_t getVirtualGraph(const TensorId &nodeOutputName) const;
  int64_t getVirtualGraph(const std::set<TensorId> &nodeOutputNames) const;
  bool hasVirtualGraph() const;
  int64_t getPipelineStage() const;
  bool hasPipelineStage() const;
  int64_t getExecutionPhase() const;
  bool hasExecutionPhase() const;

private:
  void checkCustomOpDomain(const OperatorIdentifier &opid, int opsetVersion) const;
  Builder();
  std::unique_ptr<BuilderImpl> impl_;
  Builder *parent_ = nullptr;
  std::vector<std::unique_ptr<Builder>> children_;
  friend class BuilderImpl;
};

} // namespace popart

#include "popart/builder.gen.hpp"  // the per-opset classes, complete for callers of aiOnnxOpsetN()
