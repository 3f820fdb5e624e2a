// The IR: all graphs of a model plus the options and data flow it was built
// for. A front end builds it (Ir::prepare imports an ONNX model; PopXL and C++
// code create ops directly), then the preparation pipeline (patterns, folding,
// autodiff, optimizer, in-placing: transforms/pipeline.hpp) makes it ready for
// the CPU executor.
#pragma once
#include "popart/names.hpp"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace popart {

class DataFlow;
class Graph;
class InputShapeInfo;
class Optimizer;
class Patterns;
class Tensor;
struct SessionOptions;
namespace onnxpb {
struct Model;
}

/// Everything needed to build an IR from an ONNX model.
struct IrBundle {
  const onnxpb::Model *model = nullptr;
  const InputShapeInfo *inputShapeInfo = nullptr;
  const DataFlow *dataFlow = nullptr;
  TensorId loss;                          // empty for inference
  const Optimizer *optimizer = nullptr;   // null for inference
  const SessionOptions *userOptions = nullptr;
  const Patterns *patterns = nullptr;
  std::string sessionName;
};

class Ir {
public:
  Ir();
  ~Ir();
  Ir(const Ir &) = delete;
  Ir &operator=(const Ir &) = delete;

  /// Imports the ONNX model of `bundle`, then runs the preparation pipeline.
  void prepare(const IrBundle &bundle);
  bool isPrepared() const { return prepared_; }
  void setIsPrepared() { prepared_ = true; }

  Graph &getMainGraph() const;
  Graph &getGraph(const GraphId &id) const;
  bool hasGraph(const GraphId &id) const;
  Graph &createGraph(const GraphId &id);
  void removeGraph(const GraphId &id);
  std::vector<Graph *> getAllGraphs() const;
  /// Graphs in an order where callees come before their callers.
  std::vector<Graph *> getGraphSchedule() const;
  Tensor *getTensor(const TensorId &id) const;  // searched in the main graph

  const SessionOptions &getSessionOptions() const { return *options_; }
  SessionOptions &getSessionOptions() { return *options_; }
  void setUserOptions(const SessionOptions &o);
  const DataFlow &getDataFlow() const { return *dataFlow_; }
  void setDataFlow(const DataFlow &df);
  const Patterns &getPatterns() const { return *patterns_; }
  void setPatterns(const Patterns &p);
  const InputShapeInfo &getInputShapeInfo() const { return *inputShapeInfo_; }
  /// The imported ONNX model; null for an IR built op by op.
  const onnxpb::Model *getModel() const { return model_.get(); }
  void setOnnxModel(const onnxpb::Model &m);
  const Optimizer *getOptimizer() const { return optimizer_.get(); }
  void setOptimizer(const Optimizer &o);
  bool isTraining() const { return optimizer_ != nullptr; }
  const TensorId &getFinalLossId() const { return finalLossId_; }
  void setFinalLossId(const TensorId &id) { finalLossId_ = id; }
  /// True for an IR built op by op with SessionOptions::enableExplicitMainLoops (PopXL's): its front end
  /// orders in-place changes itself (creation order), and one run() runs the main graph once.
  bool isExplicitProgram() const;
  /// Opset version of `domain` in the imported model (0 when absent).
  int64_t getOpSetVersion(const std::string &domain) const;

  OpId getAndIncrOpsCounter() { return opsCounter_++; }
  /// A tensor id not yet used in any graph, built from `base`.
  TensorId createIntermediateTensorId(const TensorId &base);

  /// Writes a Graphviz file for check point `name` if enabled by the options
  /// (dotChecks / POPART_DOT_CHECKS) into logDir.
  void dotCheckpoint(const std::string &name) const;
  /// The IR as JSON (POPART_IR_DUMP, Session.getSerializedGraph()).
  std::string serialise() const;

  /// The random generator state: each random kernel derives its draws from
  /// (seed, the op, counter); the executor advances counter once per micro-batch.
  struct RandomState {
    uint64_t seed = 0;
    uint64_t counter = 0;
  };
  RandomState &randomState() { return randomState_; }
  /// Optimizer state found in the model's initializers (bytes by tensor id),
  /// used as the initial value of the matching state Variables.
  std::map<TensorId, std::vector<char>> &savedOptimizerState() { return savedOptimizerState_; }
  const RandomState &randomState() const { return randomState_; }

private:
  bool prepared_ = false;
  std::map<GraphId, std::unique_ptr<Graph>> graphs_;
  std::unique_ptr<SessionOptions> options_;
  std::unique_ptr<DataFlow> dataFlow_;
  std::unique_ptr<Patterns> patterns_;
  std::unique_ptr<InputShapeInfo> inputShapeInfo_;
  std::unique_ptr<onnxpb::Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  TensorId finalLossId_;
  OpId opsCounter_ = 100;
  int64_t idCounter_ = 0;
  RandomState randomState_;
  std::map<TensorId, std::vector<char>> savedOptimizerState_;
};

} // namespace popart
