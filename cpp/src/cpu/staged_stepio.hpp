// A replica's step IO while replicas run their pipelines concurrently: the
// executor reads the replica's inputs from the user's step IO beforehand (in
// the [batch, accumulation, replica] order of the data) and hands the anchors
// the replica wrote back to it afterwards in the same order, so the replicas
// never touch the user's step IO (and its cursors) at once.
#pragma once
#include "popart/stepio.hpp"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace popart::popx {

class StagedStepIO final : public IStepIO {
public:
  /// `anchors`: the type and shape of each anchor's value for one micro-batch.
  explicit StagedStepIO(std::map<TensorId, TensorInfo> anchors) : anchorInfo_(std::move(anchors)) {}
  /// Forgets the staged inputs and recorded anchors (keeps their memory).
  void clear();
  /// Copies `numElements` of input `id` from `io` (one in()/inComplete()) for a later in().
  void stageInput(IStepIO &io, const TensorId &id, int64_t numElements);
  /// Anchors written from now on belong to micro-batch `m`.
  void setMicroBatch(int64_t m) { microBatch_ = m; }
  /// Writes the anchors recorded for micro-batch `m` to `io`, in the order they were written.
  void replayAnchors(IStepIO &io, int64_t m) const;

  ConstVoidData in(TensorId id, int64_t numElements, bool prefetch) override;
  void inComplete(TensorId id, int64_t numElements) override;
  MutableVoidData out(TensorId id, int64_t numElements) override;

private:
  struct Staged {
    TensorInfo info;
    std::vector<char> bytes;
  };
  struct Queue {
    std::vector<Staged> items;
    size_t staged = 0, read = 0;
  };
  std::map<TensorId, Queue> inputs_;
  struct Anchor {
    int64_t microBatch;
    TensorId id;
    TensorInfo info;
    std::vector<char> bytes;
  };
  std::map<TensorId, TensorInfo> anchorInfo_;
  std::vector<Anchor> anchors_;
  size_t anchorCount_ = 0;
  int64_t microBatch_ = 0;
};

} // namespace popart::popx
