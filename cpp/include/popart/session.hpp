// Sessions: compile an ONNX model for a device and run it.
#pragma once
#include <mutex>
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace popart {

class DataFlow;
class DeviceInfo;
class IStepIO;
class StepIOGeneric;
class IWeightsIO;
class InputShapeInfo;
class Ir;
class Optimizer;
class Patterns;
struct SessionOptions;
namespace popx {
class Executor;
}

class Session {
public:
  virtual ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Builds the CPU programs (and, if loadEngine, makes the session runnable);
  /// also copies the weights to the device.
  void prepareDevice(bool loadEngine = true);
  void loadEngineAndConnectStreams();
  void weightsFromHost();
  void weightsToHost();
  /// Copies host weights into / out of user buffers (no device transfer).
  void readWeights(const IWeightsIO &weights);
  void writeWeights(const IWeightsIO &weights);
  void run(IStepIO &stepio, const std::string &debugName = "");
  /// Runs a named program; "" or "main" is the main program.
  void run(const std::string &programHandle, IStepIO &stepio, const std::string &debugName = "");
  /// Writes the ONNX model with the current device weights; weights the model
  /// keeps in external files are written back to those files (atomically).
  void modelToHost(const std::string &fileName);
  /// Moves the externally saved tensors whose location is `fromLocation` to the
  /// new file `toLocation` (which must not exist), written now with the current
  /// weights; later modelToHost calls write there.
  void updateExternallySavedTensorLocations(const std::string &fromLocation, const std::string &toLocation);
  /// Replaces host weights by the initializers of `model` (bytes or path) and
  /// copies them to the device.
  void resetHostWeights(const std::string &modelProtoOrFilename,
                        bool ignoreWeightsInModelWithoutCorrespondingHostWeight = false);

  TensorInfo getInfo(const TensorId &id) const;
  bool hasInfo(const TensorId &id) const;
  std::vector<TensorId> getTensorIds() const;
  std::string getSummaryReport(bool resetProfile = true) const;
  std::string getSerializedGraph() const;
  /// Time-stamp-counter ticks (rdtsc) spent in the last run(); 0 before any run.
  uint64_t getCycleCount(const std::string &id = "") const;
  void setRandomSeed(uint64_t seed);
  uint64_t getRandomSeed() const;
  std::vector<uint32_t> getRNGState() const;
  void setRNGState(const std::vector<uint32_t> &state);
  /// Every replica's weights := those of process `rootRank`'s first replica
  /// (with one process: replica 0's).
  void broadcastWeights(int rootRank = 0);

  /// Host weights equal the device weights (false after a training run until weightsToHost).
  bool areHostWeightsInSync() const { return hostWeightsInSync_; }
  void markHostWeightsInSync() { hostWeightsInSync_ = true; }
  void markHostWeightsOutOfSync() { hostWeightsInSync_ = false; }
  /// weightsToHost() unless the host weights are already in sync.
  void copyDeviceWeightsToHost();
  /// Every tensor id of every graph.
  std::set<TensorId> getAllTensorIds() const;
  /// The summary report without resetting the statistics.
  std::string getReport() const { return getSummaryReport(false); }
  /// Throws when two in-place ops could modify one tensor in either order.
  void checkInplacingAmbiguity() const;

  /// Calls `callback` with the buffer of tensor `streamHandle` each time the
  /// tensor is written during run() (an input after it is read, any other
  /// tensor after its producer ran), for replica `index`. The callback may
  /// read or change the data (e.g. gradients before the weight update).
  void connectStreamToCallback(const TensorId &streamHandle, std::function<void(void *)> callback,
                               unsigned index = 0);

  /// Executable files: the CPU "executable" is a fingerprint of the compiled IR
  /// plus, optionally, the Variables (weights and optimizer state).
  /// `path` is a file, or a directory in which <name>.popart_cpu is written.
  void saveExecutable(const std::string &path, bool savePopartMetadata = true, bool saveVariables = true);
  /// Restores Variables saved with the executable; the IR must match the file's.
  void loadExecutable(const std::string &filename);
  /// prepareDevice(false) then saveExecutable(filename).
  void compileAndExport(const std::string &filename);
  /// Writes only the Variables, in the executable format.
  void saveVariables(const std::string &path);
  /// With enableEngineCaching, writes the executable to cachePath.
  void updateEngineCache();
  /// false: the next run() reloads the engine (copies the host weights if needed).
  void setEngineIsLoaded(bool isLoaded) { engineLoaded_ = isLoaded; }

  const Ir &getIr() const { return *ir_; }
  Ir &getIr() { return *ir_; }
  /// The IR, shared (Python's session.getIr() keeps the session's IR alive through it).
  std::shared_ptr<Ir> getIrShared() const { return ir_; }
  std::shared_ptr<DeviceInfo> getDevice() const { return device_; }
  popx::Executor &getExecutor() const;
  bool isPrepared() const;
  const std::string &getName() const { return name_; }

protected:
  Session(std::shared_ptr<DeviceInfo> device, const std::string &name);
  /// Takes an IR a front end built; runs the preparation pipeline unless the
  /// IR is prepared already.
  void ctorFromIr(std::shared_ptr<Ir> ir);
  /// Parses the model and prepares the IR.
  void ctorCommonLogic(const std::string &modelProtoOrFilename, const DataFlow &dataFlow,
                       const InputShapeInfo &inputShapeInfo, const SessionOptions &options,
                       const Patterns &patterns, const TensorId &loss, const Optimizer *optimizer);

  std::shared_ptr<Ir> ir_;
  std::unique_ptr<popx::Executor> devicex_;
  std::shared_ptr<DeviceInfo> device_;
  std::string name_;
  void countStepElements();
  void checkStepInputIds(const StepIOGeneric &io) const;
  void refuseConstantOperands(const std::function<bool(const TensorId &)> &names, const std::string &what) const;
  void refuseOptimizingConstants(const Optimizer &optimizer) const;
  struct StepElements {
    std::map<TensorId, int64_t> inputs, anchors;
  } stepElements_;
  bool weightsOnDevice_ = false;
  bool hostWeightsInSync_ = true;
  bool engineLoaded_ = false;
  std::mutex runMutex_;  // run() calls on one session are serialised; sessions stay independent
};

class InferenceSession : public Session {
public:
  static std::unique_ptr<InferenceSession>
  createFromOnnxModel(const std::string &model, const DataFlow &dataFlow,
                      std::shared_ptr<DeviceInfo> device, const InputShapeInfo &inputShapeInfo,
                      const SessionOptions &userOptions, const Patterns &patterns,
                      const std::string &name = "inference");
  static std::unique_ptr<InferenceSession>
  createFromOnnxModel(const std::string &model, const DataFlow &dataFlow,
                      std::shared_ptr<DeviceInfo> device);
  /// A session for an IR built op by op (or by any front end); the IR is
  /// prepared here if it is not yet. The IR must have no optimizer.
  static std::unique_ptr<InferenceSession> createFromIr(std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> deviceInfo,
                                                        const std::string name = "");

private:
  using Session::Session;
};

/// A session that trains: forward, backward and optimizer in every run().
class TrainingSession : public Session {
public:
  static std::unique_ptr<TrainingSession>
  createFromOnnxModel(const std::string &model, const DataFlow &dataFlow, const TensorId &loss,
                      const Optimizer &optimizer, std::shared_ptr<DeviceInfo> device,
                      const InputShapeInfo &inputShapeInfo, const SessionOptions &userOptions,
                      const Patterns &patterns, const std::string &name = "training");
  static std::unique_ptr<TrainingSession>
  createFromOnnxModel(const std::string &model, const DataFlow &dataFlow, const TensorId &loss,
                      const Optimizer &optimizer, std::shared_ptr<DeviceInfo> device);
  /// A training session for an IR built op by op: the IR's optimizer (set
  /// with Ir::setOptimizer, or `optimizer` when given) and final loss drive
  /// autodiff and the weight updates; the IR is prepared here if it is not yet.
  static std::unique_ptr<TrainingSession> createFromIr(std::shared_ptr<Ir> ir, std::shared_ptr<DeviceInfo> deviceInfo,
                                                       const std::string name = "",
                                                       const Optimizer *optimizer = nullptr);
  /// Changes non-const hyper-parameters without recompiling; throws when the
  /// new optimizer differs in type, const values or weight-specific entries.
  void updateOptimizerFromHost(const Optimizer *optimizer);

private:
  using Session::Session;
};

} // namespace popart
