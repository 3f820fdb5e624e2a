// One replica's program instance (PopART's Devicex): owns every buffer of a
// prepared IR for that replica (weights, activation arena, scratch, remote
// buffers, RNG counter), the Opx of each op and the program fragments built
// from their grow(). The Executor (executor.hpp) owns one per local replica and
// runs them concurrently; collective ops reach the other replicas through the
// Communicator.
#pragma once
#include "cpu/workspace.hpp"
#include "popart/ir.hpp"
#include "popart/popx/opx.hpp"
#include "popart/stepio.hpp"
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

namespace popart {
class Ir;
class Graph;
class Tensor;
} // namespace popart

namespace popart::popx {

/// Aligned heap block.
struct Block {
  explicit Block(int64_t nbytes);
  ~Block();
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
  char *data = nullptr;
  int64_t size = 0;
};

/// Per-op run statistics for the summary report.
struct OpStats {
  const Op *op;
  int64_t calls = 0;
  std::chrono::nanoseconds time{0};
};

class Communicator;
struct SharedUpdates;

class Devicex {
public:
  /// `localReplica`: this instance's replica among the process's replicas.
  explicit Devicex(Ir &ir, int64_t localReplica = 0, Communicator *comm = nullptr);
  /// A further instance of the same replica for pipelining: weights, constants
  /// and optimizer state are `weights`'s buffers; activations, inputs and
  /// scratch are its own. `weights` must be prepared first.
  Devicex(Ir &ir, const Devicex &weights);
  ~Devicex();

  /// Plans memory, creates the Opxs and grows every program.
  void prepare();
  bool isPrepared() const { return prepared_; }

  void weightsFromHost();
  void weightsToHost();
  /// Copies one tensor's host data to its device buffer (optimizer values).
  void writeTensorToDevice(const Tensor *t);
  /// The device weights changed other than through the two calls above.
  void markHostWrite() { ++hostWrites_; }

  /// Where a micro-batch is in the step: first/last of the step for its replica.
  struct MicroBatch {
    int64_t batch, replica;
    bool first, last;
  };
  /// The run-time steps of one micro-batch, driven by the Executor: set the
  /// micro-batch (its RNG counter, and the step IO for host streams), read the
  /// inputs, run the main program, write the anchors; runOuter() once per
  /// batch (the var-updates after accumulation). endRun() forgets the IO.
  void beginMicroBatch(IStepIO &io, const MicroBatch &mb, uint64_t rngCounter);
  void readInputs();
  void runMain() const;
  void runOuter(uint64_t rngCounter);
  bool hasOuter() const { return !outerProgram_.empty(); }
  void writeAnchors();
  /// This instance's anchor writer (Sum state, IO) with `src`'s anchor values.
  void writeAnchorsFrom(const Devicex &src, IStepIO &io, const MicroBatch &mb);
  /// Forgets the IO; kernels reading input streams in place read their own buffers again.
  void endRun();

  /// The main program's inner ops split where the pipeline stage changes
  /// (schedule order); ops without a stage join the previous run of ops.
  struct Segment {
    int64_t stage;
    Sequence prog;
    int64_t ops = 0;
  };
  const std::vector<Segment> &segments() const { return segments_; }
  /// Every global replica's buffer of a tensor, in memory every replica sees.
  using PeerBuffers = std::unordered_map<const Tensor *, std::vector<const char *>>;
  /// Replicas sharing their trained weights (shared_update.hpp): the tensors
  /// of plan.tensors live in `buffers` (memory the executor owns, seen by every
  /// replica); `writer`: this replica's weightsFromHost writes them (one
  /// replica does). The gradients of `peers` live in this replica's entry, where
  /// the others read them in place. Set before prepare().
  void shareUpdates(const SharedUpdates *plan, const std::unordered_map<const Tensor *, void *> *buffers,
                    const PeerBuffers *peers, bool writer) {
    shared_ = plan;
    sharedBuffers_ = buffers;
    peers_ = peers;
    writesShared_ = writer;
  }
  /// Every global replica's buffer of gradient t (read in place by a reduction), or null.
  const std::vector<const char *> *peerBuffers(const Tensor *t) const;
  /// The op reduces or updates only this replica's slice of a shared weight.
  bool slicedUpdate(const Op *op) const;
  /// Of reduced gradient t, only this replica's slice is made (a shared weight's).
  bool slicedGradient(const Tensor *t) const;
  /// The weight-gradient product whose result the reduction making reduced
  /// gradient `t` computes itself, from every replica's operands of it
  /// (SharedUpdates::products), or null.
  const Op *productOf(const Tensor *t) const;
  /// `p` is such a product: its own kernel does nothing.
  bool productRunsInReduction(const Op *p) const;
  /// Accumulation `p` (a MatMulRhsGradAccumulate) adds this replica's rows of the product over every
  /// replica's samples to the accumulator they share (SharedUpdates::accumulations): whether it
  /// divides by the replicas (a Mean reduction), or nullopt when it accumulates the replica's own.
  std::optional<bool> gathersAccumulation(const Op *p) const;
  /// Reduced gradient t is its accumulator, which holds the sum over the replicas already.
  bool summedGradient(const Tensor *t) const;
  /// Stages chosen by the executor (VirtualGraphMode::Auto), used where ops
  /// have neither pipelineStage nor virtualGraph. Set before prepare().
  void setAutoStages(std::unordered_map<const Op *, int64_t> stages) { autoStages_ = std::move(stages); }

  /// The seed and micro-batch counter the random kernels of this replica draw from.
  const Ir::RandomState &randomState() const { return rng_; }
  int64_t localReplica() const { return replica_; }
  /// Collectives with the other replicas (never null once prepared by an Executor).
  Communicator &communicator() const;

  /// Buffer of a tensor (planned for ActGrad, persistent for the others).
  TensorView view(const Tensor *t) const;
  TensorView scratch(const TensorInfo &info);
  /// Memory for a kernel's temporaries that it uses only while its own steps run (it
  /// runs no sub-graph program in between): the ops of a program share one region,
  /// so these cost the largest op's, not their sum. Several calls by one kernel get
  /// disjoint memory.
  TensorView workspace(const TensorInfo &info);
  void setOutTensor(const Op *op, OutIndex i, const TensorView &t);
  /// The program of a sub-graph, grown on first use (Call, If, Loop, Scan).
  const Sequence &graphProgram(const Graph &g);
  /// Copies between buffers of different graphs (sub-graph inputs/outputs).
  static void copy(const TensorView &dst, const TensorView &src);

  /// Evaluates one op whose inputs are all Const; returns output bytes by index.
  static std::map<OutIndex, std::vector<char>> evaluateConstOp(Op &op);

  /// Explicit host IO (HostLoad/HostStore ops), valid while run() runs: reads
  /// the current micro-batch of input stream `id` into dst / returns src as
  /// anchor `id`, as the implicit stream copies do.
  void hostLoad(const TensorId &id, const TensorView &dst);
  void hostStore(const TensorId &id, const TensorView &src);
  /// Entry `index` of remote buffer `id` (RemoteLoad/RemoteStore), entries
  /// shaped `entry`; a store may add entries, a load needs a stored entry.
  void *remoteEntry(int64_t id, int64_t index, const TensorInfo &entry, bool forStore);
  /// From now on entry `index` of remote buffer `id` is the buffer of
  /// persistent tensor `t` (PopXL's remote variables: no second copy).
  void bindRemoteEntry(int64_t id, int64_t index, const Tensor *t);

  /// For a tensor whose device buffer only the host writes (a Const, or a
  /// Variable of an inference IR that no op modifies): a counter that changes
  /// whenever the host writes device weights, so kernels may cache a derived
  /// copy (a oneDNN weight layout). Null when ops may change the tensor.
  const uint64_t *hostWriteCounter(const Tensor *t) const;
  /// A kernel's own copy of such a tensor (e.g. in a oneDNN weight layout): refresh(plain) remakes it from
  /// plain data, writeBack(plain) writes its values back in the plain layout.
  struct DerivedCopy {
    std::function<void(const void *)> refresh;
    std::function<void(void *)> writeBack;
  };
  void addDerivedCopy(const Tensor *t, DerivedCopy copy);
  /// A kernel reads one use of main-graph input stream `t` only through memory that `rebind(p)` re-points
  /// at p. When every use of t is so registered (and no op writes t or views it, and t is no anchor), each
  /// micro-batch is read in place from the step IO's array (StepIOGeneric: valid for the whole run)
  /// instead of being copied into t's buffer.
  void addStreamReader(const Tensor *t, std::function<void(const void *)> rebind);
  /// Whether input stream `t` is read in place (fixed by prepare()).
  bool readsInPlace(const Tensor *t) const;
  /// Frees the device buffer of every Variable that all its readers read through derived copies: those are
  /// then made straight from the host data (weightsFromHost, writeTensorToDevice) and written back to it
  /// (weightsToHost). Only for a sole instance of a sole replica (the Executor decides). Returns bytes freed.
  int64_t dropPlainCopies();
  /// Whether tensor t has a device buffer of its own (false once dropPlainCopies dropped it).
  bool hasBuffer(const Tensor *t) const { return buffers_.count(t) != 0; }

  /// fn(buffer) after tensor t is written in a micro-batch of `replica`.
  void addTensorCallback(const Tensor *t, std::function<void(void *)> fn, int64_t replica);

  Ir &ir() const { return ir_; }
  const std::vector<OpStats> &opStats() const { return stats_; }
  void resetStats() {
    for (auto &s : stats_) s = OpStats{s.op};
  }
  int64_t plannedBytes() const { return plannedBytes_; }
  int64_t persistentBytes() const { return persistentBytes_; }
  int64_t workspaceBytes() const { return workspace_.bytes(); }

private:
  struct GraphPlan;
  void planGraph(const Graph &g);
  /// Tensors of sub-graph `g` that live in its sole caller's buffers (see devicex.cpp).
  std::unordered_map<const Tensor *, void *> callerBuffers(const Graph &g);
  using GraphUsers = std::unordered_map<GraphId, std::pair<int, const Op *>>;
  std::unique_ptr<GraphUsers> graphUsers_;  // ops running each graph, counted once at the first sub-graph plan
  void allocatePersistent(const Tensor *t);
  Sequence growOps(const std::vector<Op *> &ops);
  Sequence growGraph(const Graph &g);
  void readStream(IStepIO &io, const TensorId &id, const TensorInfo &info, void *dst);
  /// The step IO's data for one micro-batch of stream `id`, checked against `info`.
  ConstVoidData streamData(IStepIO &io, const TensorId &id, const TensorInfo &info);
  struct Stream;
  void bindStream(Stream &s, const void *p);
  bool readableInPlace(const Tensor *t) const;
  void runCallbacks(const Tensor *t) const;
  void runCallbacks(const Op *op) const;
  void writeAnchors(IStepIO &io, const MicroBatch &mb);
  void writeAnchor(IStepIO &io, const TensorId &id, const void *src, const TensorInfo &info, const MicroBatch &mb);

  Ir &ir_;
  bool prepared_ = false;
  std::unordered_map<const Tensor *, void *> buffers_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::map<GraphId, Sequence> programs_;
  Sequence outerProgram_;  // main-graph ops run once per accumulation cycle
  std::vector<std::unique_ptr<Opx>> opxs_;
  std::vector<OpStats> stats_;
  std::map<const Op *, std::vector<std::pair<OutIndex, TensorView>>> outCopies_;
  std::map<std::pair<TensorId, int64_t>, std::unique_ptr<Block>> anchorSums_;  // (anchor, replica)
  struct TensorCallback {
    std::function<void(void *)> fn;
    int64_t replica;
  };
  std::unordered_map<const Tensor *, std::vector<TensorCallback>> callbacks_;
  int64_t replica_ = 0;  // local replica of this instance
  Communicator *comm_ = nullptr;
  const Devicex *weightsFrom_ = nullptr;
  const SharedUpdates *shared_ = nullptr;
  const std::unordered_map<const Tensor *, void *> *sharedBuffers_ = nullptr;
  const PeerBuffers *peers_ = nullptr;
  /// This replica's buffer of a tensor of peers_, or null.
  void *ownPeerBuffer(const Tensor *t) const;
  bool writesShared_ = true;
  /// t lives in the replicas' shared memory and another replica writes it from the host.
  bool sharedElsewhere(const Tensor *t) const { return sharedBuffers_ && !writesShared_ && sharedBuffers_->count(t); }
  std::vector<Segment> segments_;
  std::unordered_map<const Op *, int64_t> autoStages_;
  Ir::RandomState rng_;
  std::unordered_map<const Tensor *, std::vector<DerivedCopy>> derived_;
  std::unordered_map<const Tensor *, std::vector<DerivedCopy>> dropped_;  // their plain buffer is gone
  uint64_t hostWrites_ = 0;  // weightsFromHost / writeTensorToDevice / broadcastWeights calls
  IStepIO *io_ = nullptr;  // while run() runs, for HostLoad/HostStore
  MicroBatch microBatch_{};
  std::set<TensorId> anchorsStoredByOps_;  // HostStore ops write these, not writeAnchors
  // Fixed at prepare(), so that a micro-batch does no look-ups by name.
  struct Stream {
    const Tensor *t;
    void *buffer;                                          // its own device buffer
    std::vector<std::function<void(const void *)>> rebind;  // empty: copied into `buffer`
    const void *bound;                                     // where its readers read now
  };
  std::vector<Stream> streams_;  // main-graph input streams
  std::unordered_map<const Tensor *, std::vector<std::function<void(const void *)>>> streamReaders_;
  std::vector<std::pair<TensorId, const Tensor *>> anchorTensors_;  // anchors writeAnchors writes (null: absent)
  const Tensor *anchorTensor(const std::pair<TensorId, const Tensor *> &a) const;
  struct RemoteBuffer {
    TensorInfo entry;
    std::vector<char> bytes;  // entries one after the other
  };
  std::map<int64_t, RemoteBuffer> remoteBuffers_;
  std::map<std::pair<int64_t, int64_t>, const Tensor *> boundEntries_;  // (buffer, index) -> tensor
  int64_t plannedBytes_ = 0, persistentBytes_ = 0;
  Workspace workspace_;
  int64_t workspaceOffset_ = 0;  // where the kernel being created gets its next workspace
  int growDepth_ = 0;            // growOps calls in progress (a sub-graph grown inside an op's grow)
};

} // namespace popart::popx
