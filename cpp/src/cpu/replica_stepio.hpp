// The step IO of replicas that run concurrently: each replica reads and writes
// through its own view (replicaIO(r)), so the replicas never touch the user's
// step IO (and its cursors) at once. Before the replicas start, the executor
// reads their inputs from the user's step IO in the order of the step's data
// (stageInput); a view's k-th in()/inComplete() of a stream returns the k-th
// value staged for that replica (wrapping after the last). What the replicas
// write is recorded and written to the user's step IO afterwards
// (writeAnchors): every anchor's k-th value of each replica in replica order,
// k = 0, 1, ..., which is the order replicas running one after the other
// would have written.
//
// Used for pipelined replicas, for explicit programs with HostLoad/HostStore
// ops (PopXL's host_load/host_store) and for programs with host copy ops
// (SessionOptions::useHostCopyOps).
#pragma once
#include "popart/stepio.hpp"
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace popart::popx {

/// Writes one value of anchor `id` (type and shape `info`, bytes at `src`) to `io`: out(), checks the
/// buffer's type and size (a popart runtime_error naming the anchor), copy, outComplete().
void writeAnchorValue(IStepIO &io, const TensorId &id, const TensorInfo &info, const void *src);

class ReplicaStepIO {
public:
  /// `anchors`: the type and shape of one value of each anchor a replica may write.
  ReplicaStepIO(int64_t replicas, std::map<TensorId, TensorInfo> anchors);
  ~ReplicaStepIO();

  /// Forgets the staged inputs (releasing data shared with the user's step IO)
  /// and the recorded anchors; keeps the memory for the next step.
  void clear();
  /// Reads `numElements` of input `id` from `io` (one in() and inComplete())
  /// as the next value of `id` for replica `replica`.
  void stageInput(IStepIO &io, int64_t replica, const TensorId &id, int64_t numElements);
  /// The step IO replica `r` reads and writes through.
  IStepIO &replicaIO(int64_t r);
  /// Writes the recorded anchors to `io` (out(), copy, outComplete()) and clear()s.
  void writeAnchors(IStepIO &io);

private:
  class View;
  std::map<TensorId, TensorInfo> anchorInfo_;
  std::vector<std::unique_ptr<View>> views_;  // one per replica
};

} // namespace popart::popx
