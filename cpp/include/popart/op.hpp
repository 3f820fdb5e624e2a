// Base class of every IR operation (built-in or custom). An op knows its
// inputs/outputs, attributes, shape inference (setup), gradient ops, in-place
// variants and which outputs alias which inputs.
#pragma once
#include "popart/attributes.hpp"
#include "popart/tensorindex.hpp"
#include "popart/tensorinfo.hpp"
#include <memory>
#include <optional>
#include <tuple>

namespace popart {

class Graph;
class Ir;
class Tensor;
class OpSerialiserBase;

enum class RecomputeType { Undefined = 0, Checkpoint, Recompute, Recomputed };
enum class ExecutionContext {
  Normal = 0, AccumulateOuterFragment, WeightsFromHostFragment, WeightsToHostFragment,
  OptimizerFromHostFragment, Subgraph
};

/// Which tensor of the forward op feeds a grad op input.
enum class GradOpInType { In = 0, Out, GradOut };

struct GradInOutMapper {
  InIndex iGrad;      // input index of the grad op
  int iNonGrad;       // index of the forward op's input/output
  GradOpInType type;  // whether iNonGrad names an input, an output, or an output's gradient
  bool operator==(const GradInOutMapper &o) const {
    return iGrad == o.iGrad && iNonGrad == o.iNonGrad && type == o.type;
  }
};

class Op {
public:
  /// Settings shared by all ops. IPU placement fields are kept and honoured
  /// where they mean something on the CPU (pipeline stages, recomputation).
  struct Settings {
    Settings(Graph &graph_, const std::string &name_) : graph(&graph_), name(name_) {}
    Graph *graph;
    std::string name;
    std::optional<VGraphId> vgraphId;
    std::optional<PipelineStage> pipelineStage;
    std::optional<ExecutionPhase> executionPhase;
    std::optional<int64_t> batchSerializedPhase;
    RecomputeType recomputeType = RecomputeType::Undefined;
    ExecutionContext executionContext = ExecutionContext::Normal;
    float schedulePriority = 0.0f;
    std::optional<float> availableMemoryProportion;
    std::string partialsType;
    std::vector<std::string> excludePatterns;
    std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityVeto;
    std::map<std::string, std::string> extraOutlineAttributes;
    bool optimizerOp = false;
    bool gradientClippingOp = false;
    int64_t debugInfoId = 0;
  };

  Op(const OperatorIdentifier &opid, const Settings &settings);
  Op(const Op &other);  // copies attributes and settings, not connections
  Op &operator=(const Op &) = delete;
  virtual ~Op();

  const OperatorIdentifier opid;
  Settings settings;
  const OpId id;
  std::unique_ptr<TensorIndexMap> input;
  std::unique_ptr<TensorIndexMap> output;

  // ---- overridable behaviour ----
  virtual std::unique_ptr<Op> clone() const = 0;
  /// Shape/type inference: sets outInfo(i) from the inputs and attributes.
  virtual void setup();
  virtual std::vector<std::unique_ptr<Op>> getGradOps();
  /// For grad ops: which forward tensors feed each grad input.
  virtual const std::vector<GradInOutMapper> &gradInputInfo() const;
  /// For grad ops: grad output index -> forward input index it is the gradient of.
  virtual const std::map<int, int> &gradOutToNonGradIn() const;
  virtual void appendAttributes(OpSerialiserBase &os) const;
  virtual void appendOutlineAttributes(OpSerialiserBase &os) const;
  virtual float getSubgraphValue() const { return getLowSubgraphValue(); }
  float getHighSubgraphValue() const { return 1000.0f; }
  float getLowSubgraphValue() const { return 0.1f; }
  virtual bool requiresRandomSeed() const { return false; }
  virtual InIndex getSeedInIndex() const { return -1; }
  virtual bool isLossOp() const { return false; }
  virtual bool isOutlineable() const { return true; }
  virtual bool isIpuCopyOp() const { return false; }
  virtual bool hasSideEffect() const { return false; }
  /// In-place variants this op can become, with priorities (higher first).
  virtual std::vector<std::tuple<OperatorIdentifier, float>> inplacePriorityDefault() const {
    return {};
  }
  virtual std::unique_ptr<Op> getInplaceVariant(const OperatorIdentifier &id) const;
  /// Output `out` shares the memory of input `in`, byte for byte (view ops and
  /// in-place ops). Only whole-tensor aliases are modelled.
  virtual bool aliases(InIndex in, OutIndex out) const { return false; }
  /// The op writes to input `in` (in-place ops, var updates).
  virtual bool modifies(InIndex in) const { return false; }
  /// Input indices whose values are needed on the host at setup time (shape
  /// inputs of Reshape, Slice starts, ...); constant folding must fold them.
  virtual std::vector<InIndex> constantInputs() const { return {}; }
  /// The outputs depend only on the inputs' types and shapes, never on their
  /// values (Shape): constant folding evaluates the op even when they are not constant.
  virtual bool readsOnlyInputInfo() const { return false; }

  // ---- attributes ----
  const Attributes &attributes() const { return attributes_; }
  Attributes &attributes() { return attributes_; }
  template <class T> T attr(const std::string &name, const T &defaultValue) const {
    return attributes_.getAttribute<T>(name, defaultValue);
  }
  template <class T> const T &attr(const std::string &name) const {
    return attributes_.getAttribute<T>(name);
  }

  /// Values of a constant input (Const tensor with host data), converted;
  /// throws popart::error naming the input when it is not constant.
  std::vector<int64_t> inConstInts(InIndex i) const;
  std::vector<double> inConstFloats(InIndex i) const;
  bool inIsConst(InIndex i) const;

  // ---- connections ----
  const TensorInfo &inInfo(InIndex i) const;
  TensorInfo &outInfo(OutIndex i);
  const TensorInfo &outInfo(OutIndex i) const;
  const Shape &inShape(InIndex i) const;
  const Shape &outShape(OutIndex i) const;
  int64_t inRank(InIndex i) const { return static_cast<int64_t>(inShape(i).size()); }
  Tensor *inTensor(InIndex i) const;
  Tensor *outTensor(OutIndex i) const;
  const TensorId &inId(InIndex i) const;
  const TensorId &outId(OutIndex i) const;
  bool hasInput(InIndex i) const;
  bool hasOutput(OutIndex i) const;
  void connectInTensor(InIndex i, const TensorId &id);
  void connectOutTensor(OutIndex i, const TensorId &id);
  /// Creates an ActGrad tensor `id` in this op's graph and makes it output i.
  void createAndConnectOutTensor(OutIndex i, const TensorId &id);
  void disconnectInTensor(InIndex i);
  void disconnectOutTensor(OutIndex i);
  void disconnectAllInputs();
  void disconnectAllOutputs();

  Graph &getGraph() const { return *settings.graph; }
  Ir &getIr() const;
  const std::string &name() const { return settings.name; }
  /// "Softmax_3 (ai.onnx.Softmax:13)" — used to prefix error messages.
  std::string debugName() const;
  std::string str() const { return debugName(); }
  bool isConvertibleTo(const OperatorIdentifier &other) const { return opid == other; }
  std::optional<VGraphId> getOptionalVGraphId() const { return settings.vgraphId; }
  void setVirtualGraphId(std::optional<VGraphId> v) { settings.vgraphId = v; }
  std::optional<PipelineStage> getOptionalPipelineStage() const { return settings.pipelineStage; }
  void setPipelineStage(std::optional<PipelineStage> s) { settings.pipelineStage = s; }

protected:
  /// Helper for clone(): `return cloneAs(*this);`
  template <class T> static std::unique_ptr<Op> cloneAs(const T &op) { return std::make_unique<T>(op); }
  /// Helper for getGradOps(): one grad op of type G built from this op.
  template <class G, class F> static std::vector<std::unique_ptr<Op>> gradOps(F &fwd) {
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<G>(fwd));
    return v;
  }

private:
  Attributes attributes_;
};

/// Collects op attributes for IR dumps, DOT labels and outlining.
class OpSerialiserBase {
public:
  virtual ~OpSerialiserBase() = default;
  virtual void appendAttribute(const std::string &name, const std::string &value) = 0;
  void appendAttribute(const std::string &name, int64_t v);
  void appendAttribute(const std::string &name, float v);
  void appendAttribute(const std::string &name, const std::vector<int64_t> &v);
  void appendAttribute(const std::string &name, bool v);
  void appendAttribute(const std::string &name, const char *v) { appendAttribute(name, std::string(v)); }
};

} // namespace popart
