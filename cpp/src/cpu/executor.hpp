// The CPU executor of a session: one program instance (Devicex) per local
// replica, run concurrently on worker threads that split the host's cores, and
// the Communicator their collectives use. With one replica, the program runs on
// the calling thread.
#pragma once
#include "devicex.hpp"
#include "popart/variablesettings.hpp"
#include <memory>
#include <unordered_map>
#include <vector>

namespace popart::popx {

class Communicator;
class ReplicaThreads;
class PipelineRunner;
class ReplicaStepIO;
class ProcessGroup;
class ProcessCommunicator;
struct SharedUpdates;

class Executor {
public:
  /// Replicas of this process only.
  explicit Executor(Ir &ir);
  /// Replicas exchanging through `comm` (e.g. across processes).
  Executor(Ir &ir, std::unique_ptr<Communicator> comm);
  ~Executor();

  /// The device's virtual graphs (IPUs): the stages VirtualGraphMode::Auto
  /// splits an unannotated pipelined model into. Call before prepare().
  void setVirtualGraphs(int64_t n) { virtualGraphs_ = n; }
  void prepare();
  bool isPrepared() const { return prepared_; }
  /// Every replica's weights := the host's; a Variable with VariableSettings
  /// holds one value per group (or per replica) on the host, and each replica
  /// reads its own (see hostSlotOfReplica).
  void weightsFromHost();
  /// Reads the weights of replica 0 (all replicas hold the same values); a
  /// Variable with VariableSettings gets one value per group from each group's
  /// representative, or one per replica (VariableRetrievalMode::AllReplicas).
  void weightsToHost();
  void writeTensorToDevice(const Tensor *t);
  /// batchesPerStep x accumulationFactor micro-batches, each on every replica.
  void run(IStepIO &io);
  /// Every replica's weights := those of global replica `root`.
  void broadcastWeights(int64_t root);
  /// Host weights and every replica's weights := those of process `rootRank`
  /// of `group` (Horovod's broadcast_weights; the session itself may be local).
  void broadcastWeightsOverProcesses(ProcessGroup &group, int64_t rootRank);
  void addTensorCallback(const Tensor *t, std::function<void(void *)> fn, int64_t replica);

  int64_t localReplicas() const { return static_cast<int64_t>(replicas_.size()); }
  Devicex &replica(int64_t r) const { return *replicas_.at(static_cast<size_t>(r)); }
  Communicator &communicator() const { return *comm_; }
  /// Per-op statistics summed over the replicas.
  std::vector<OpStats> opStats() const;
  void resetStats();
  /// Bytes of one replica.
  int64_t plannedBytes() const { return replicas_.front()->plannedBytes(); }
  int64_t persistentBytes() const { return replicas_.front()->persistentBytes(); }
  int64_t workspaceBytes() const { return replicas_.front()->workspaceBytes(); }
  int threadsPerReplica() const;
  /// Weight and optimizer-state tensors the replicas hold in one buffer
  /// (each replica updating a slice, shared_update.hpp), and their bytes.
  std::pair<int64_t, int64_t> sharedTensors() const;
  /// The shared tensors are in memory the processes of this host share.
  bool sharedAcrossProcesses() const { return hostShared_ != nullptr; }
  /// Gradients that the other replicas read in place (not packed) to reduce them.
  int64_t gradientsReadInPlace() const { return static_cast<int64_t>(peers_.size()); }
  /// Weight gradients each replica makes its slice of from every replica's
  /// activations (shared_update.hpp, SharedUpdates::products and accumulations).
  int64_t gradientsFromAllReplicas() const;
  /// Placement for the report: stages, segments, in-flight micro-batches (empty when not pipelined).
  std::string pipelineSummary() const;
  int64_t lastRunTicks() const { return lastRunTicks_; }
  int64_t lastRunNanoseconds() const { return lastRunNs_; }

private:
  /// Runs task(r) for every replica: concurrently, or one after the other when
  /// the program does host IO itself (HostLoad/HostStore keep their order).
  void forReplicas(const std::function<void(int64_t)> &task);
  /// bps x accum micro-batches on every replica.
  void runSteps(IStepIO &io, int64_t bps, int64_t accum);
  void runPipelined(IStepIO &io);
  /// One run of an explicit program with host IO ops on every replica at once.
  void runWithReplicaHostIO(IStepIO &io, uint64_t rngCounter);
  /// One micro-batch of a (non-explicit) program with host IO ops on every replica at once.
  void runMicroBatchWithHostIO(IStepIO &io, const Devicex::MicroBatch &mb, uint64_t rngCounter);
  /// Every replica runs `mb` at once through its view of the step IO, then the anchors go to `io`.
  void runReplicasOnViews(IStepIO &io, const Devicex::MicroBatch &mb, uint64_t rngCounter);
  /// Pipelining applies: stages annotated, one local replica, and weights that
  /// change only between batches (inference, or training with accumulation).
  bool pipelineApplies(std::string &why) const;
  /// Every global replica's value of each grouped Variable, in replica order.
  std::vector<std::vector<char>> groupedValues();
  /// Plans the weights the replicas share (shared_update.hpp) and places them
  /// in memory every replica sees: one block for the local replicas, memory
  /// mapped by every process when the processes share a host.
  void shareWeights();
  /// Between processes sharing weights: waits for the others (`what` names the point).
  void hostBarrier(const char *what) const;

  /// Variables with VariableSettings (not shared by all replicas).
  std::vector<std::pair<Tensor *, VariableSettings>> grouped_;

  Ir &ir_;
  std::unique_ptr<Communicator> comm_;
  std::vector<std::unique_ptr<Devicex>> replicas_;
  std::unique_ptr<ReplicaThreads> threads_;
  // Several local replicas that do not read the step IO in turn (host IO ops,
  // pipelines): each replica's view of the step IO, and for host IO ops the
  // streams read with (elements, reads per micro-batch or explicit run).
  std::unique_ptr<ReplicaStepIO> replicaIO_;
  std::map<TensorId, std::pair<int64_t, int64_t>> hostReads_;
  std::vector<std::unique_ptr<Devicex>> pipelineInstances_;  // further instances of the replicas
  std::vector<std::unique_ptr<PipelineRunner>> pipelines_;   // one per local replica
  std::unique_ptr<SharedUpdates> shared_;  // weights the replicas share and update a slice each
  std::shared_ptr<char> sharedMemory_;     // holds them
  std::unordered_map<const Tensor *, void *> sharedBuffers_;
  Devicex::PeerBuffers peers_;  // gradients read in place by the others: every global replica's buffer
  // Processes sharing the weights in memory: after the fragment (main program or
  // the accumulation's outer fragment) holding the sliced updates, and when a run
  // starts or the host writes weights, they wait for each other.
  ProcessCommunicator *hostShared_ = nullptr;
  bool updatesInOuter_ = false;

  bool prepared_ = false, sequential_ = false;
  int64_t virtualGraphs_ = 1;
  int64_t lastRunTicks_ = 0, lastRunNs_ = 0;
};

} // namespace popart::popx
