// Collectives between replicas (PopART's GCL on the CPU): all-reduce,
// all-gather, reduce-scatter and broadcast over groups of replicas (a
// ReplicaGrouping: stride and group size; CommGroups map to one).
// Every local replica thread calls the same collective at the same point of its
// program (the replicas run one program, SPMD). The algorithms are written once
// over one primitive, exchange(): every replica obtains every global replica's
// contribution; each replica then reduces its group's contributions in
// replica order, so all members get bit-identical results. Implementations:
// LocalCommunicator (replica threads of one process, zero-copy through shared
// memory) and the MPI communicator of the distributed session (mpi.cpp).
#pragma once
#include "popart/replicagrouping.hpp"
#include "process_group.hpp"
#include "popart/tensorinfo.hpp"
#include <atomic>
#include <condition_variable>
#include <memory>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace popart::popx {

/// PopART's CollectiveOperator values.
enum class CollectiveOp { Add = 0, Mean, Mul, Min, Max, LogicalAnd, LogicalOr, SquareAdd, Local };
std::string toString(CollectiveOp op);

/// A reusable barrier for n threads that can be aborted: waiting threads (and
/// later arrivals) then throw a runtime_error with the abort reason. A thread
/// that arrives early spins briefly (the replicas usually arrive within
/// microseconds of each other) before it sleeps.
class Barrier {
public:
  explicit Barrier(int64_t n) : n_(n) {}
  void wait();
  void abort(const std::string &why);
  void reset();  // clears an abort (between runs)
  bool aborted() const;

private:
  mutable std::mutex m_;
  std::condition_variable cv_;
  int64_t n_, waiting_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> aborting_{false};
  std::string abort_;
};

class Communicator {
public:
  Communicator(int64_t localReplicas, int64_t globalReplicas, int64_t globalOffset);
  virtual ~Communicator();
  int64_t localReplicas() const { return local_; }
  int64_t globalReplicas() const { return global_; }
  int64_t globalOffset() const { return offset_; }

  /// out = op over the group of in (n elements of `type`); out may be in.
  void allReduce(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const void *in, void *out, DataType type,
                 int64_t n);
  /// One tensor of an allReduceParts: n elements from in, reduced into out (out may be in).
  /// A sliced part (a shared weight's gradient, shared_update.hpp) gets only the
  /// replica's slice (replicaSlice) of out; its group must hold every replica.
  /// `peers`: every global replica's in (in memory they all see, read in place,
  /// not packed); only for sliced parts.
  struct Part {
    const void *in;
    void *out;
    int64_t n;
    bool sliced = false;
    const std::vector<const char *> *peers = nullptr;
  };
  /// allReduce of `count` tensors of one type in one exchange: their inputs
  /// are packed where the exchange reads them (in the shared memory of a
  /// process group when it can), and each part's reduction is written
  /// straight into its output. Every local replica passes the same sizes.
  void allReduceParts(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const Part *parts, size_t count,
                      DataType type);
  /// Replicas sharing a weight (shared_update.hpp): the elements of this
  /// replica's slice (replicaSlice of its global index) of out := op over every
  /// replica's in, in replica order; out's other elements are left as they are.
  /// One group of all replicas; out may be in.
  void allReduceSlice(int64_t local, CollectiveOp op, const void *in, void *out, DataType type, int64_t n);
  /// out = the group's inputs of `bytes` bytes each, concatenated in group order.
  void allGather(int64_t local, const ReplicaGrouping &g, const void *in, void *out, int64_t bytes);
  /// in holds groupSize shards of n elements; out = op over the group of this replica's shard.
  void reduceScatter(int64_t local, const ReplicaGrouping &g, CollectiveOp op, const void *in, void *out, DataType type,
                     int64_t n);
  /// data := data of the group member with index `root` in the group.
  void broadcast(int64_t local, const ReplicaGrouping &g, int64_t root, void *data, int64_t bytes);

  /// The same collectives over PopART CommGroups (as the groupings they describe).
  void allReduce(int64_t local, const CommGroup &g, CollectiveOp op, const void *in, void *out, DataType type,
                 int64_t n) {
    allReduce(local, grouping(g), op, in, out, type, n);
  }
  void allGather(int64_t local, const CommGroup &g, const void *in, void *out, int64_t bytes) {
    allGather(local, grouping(g), in, out, bytes);
  }
  void reduceScatter(int64_t local, const CommGroup &g, CollectiveOp op, const void *in, void *out, DataType type,
                     int64_t n) {
    reduceScatter(local, grouping(g), op, in, out, type, n);
  }
  void broadcast(int64_t local, const CommGroup &g, int64_t root, void *data, int64_t bytes) {
    broadcast(local, grouping(g), root, data, bytes);
  }
  /// The ReplicaGrouping `g` describes for the global replicas.
  ReplicaGrouping grouping(const CommGroup &g) const { return toReplicaGrouping(g, static_cast<unsigned>(global_)); }

  /// Host all-reduce (Horovod's hostAllReduce): data := the mean over the
  /// attached host process group of this process's data, which must be equal on
  /// the local replicas (reduced across them first). Nothing without a group.
  void hostAllReduce(int64_t local, void *data, DataType type, int64_t n);
  void setHostGroup(std::shared_ptr<ProcessGroup> group) { hostGroup_ = std::move(group); }
  const std::shared_ptr<ProcessGroup> &hostGroup() const { return hostGroup_; }

  /// Where local replica `local` writes the `bytes` bytes it then passes to
  /// gather() (memory the others read it from, so that nothing is copied).
  char *contribution(int64_t local, int64_t bytes) { return staging(local, bytes); }
  /// Runs f on every global replica's `bytes` bytes (this replica's from `in`),
  /// in global replica order, readable until every replica's f has returned:
  /// kernels that compute from the other replicas' tensors.
  void gather(int64_t local, const void *in, int64_t bytes,
              const std::function<void(const std::vector<const char *> &)> &f);

  /// Replicas in the group of `g` (checks that it divides the replicas).
  int64_t groupSize(const ReplicaGrouping &g) const;
  /// The index of local replica `local` in its group of `g`.
  int64_t indexInGroup(const ReplicaGrouping &g, int64_t local) const;
  /// A replica failed: replicas blocked in a collective throw instead of waiting.
  virtual void abort(const std::string &why) = 0;
  /// Clears an abort before the next run.
  virtual void reset() = 0;

protected:
  /// Pointers to every global replica's `bytes` bytes, valid until release().
  virtual const std::vector<const char *> &exchange(int64_t local, const void *in, int64_t bytes) = 0;
  /// Where local replica `local` may write the `bytes` bytes it is about to
  /// exchange (exchange() then copies nothing); a buffer of its own by default.
  virtual char *staging(int64_t local, int64_t bytes);
  virtual void release(int64_t local) = 0;
  /// Waits for the other local replicas.
  virtual void localBarrier() = 0;

private:
  /// Elements of replica `local`'s slice (replicaSlice) of out := op over src's n elements.
  void reduceOwnSlice(int64_t local, CollectiveOp op, DataType type, const std::vector<const char *> &src, int64_t n,
                      void *out) const;
  /// Throws unless g partitions this communicator's global replicas.
  void checkGrouping(const ReplicaGrouping &g) const;
  std::shared_ptr<ProcessGroup> hostGroup_;
  std::vector<char> hostRecv_;
  void *hostResult_ = nullptr;
  std::vector<std::pair<const Part *, size_t>> partsOf_;  // per local replica: its all-reduce's parts
  struct Work {                // per local replica thread, reused between collectives
    std::vector<const char *> members;
    std::vector<std::pair<const char *, int64_t>> done;  // group (first member) -> local replica reduced for
    std::vector<char> staging;
  };
  std::vector<Work> work_;
  int64_t local_, global_, offset_;
};

/// Replica threads of one process.
class LocalCommunicator final : public Communicator {
public:
  explicit LocalCommunicator(int64_t replicas);
  void abort(const std::string &why) override { barrier_.abort(why); }
  void reset() override { barrier_.reset(); }

protected:
  const std::vector<const char *> &exchange(int64_t local, const void *in, int64_t bytes) override;
  void release(int64_t local) override { barrier_.wait(); }
  void localBarrier() override { barrier_.wait(); }

private:
  Barrier barrier_;
  std::vector<const char *> posted_;
};

} // namespace popart::popx
