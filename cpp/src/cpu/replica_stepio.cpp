#include "replica_stepio.hpp"
#include "popart/datatype.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <cstring>

namespace popart::popx {

void writeAnchorValue(IStepIO &io, const TensorId &id, const TensorInfo &info, const void *src) {
  MutableVoidData out = io.out(id, info.nelms());
  if (out.info.isSet() && !hostHolds(out.info.dataType(), info.dataType()))
    throw runtime_error("output buffer of anchor '{}' has type {}, expected {}", id, out.info.data_type(),
                        info.data_type());
  if (out.info.isSet() && out.info.nelms() != info.nelms())
    throw runtime_error("output buffer of anchor '{}' has {} elements for one return, expected {} ({})", id,
                        out.info.nelms(), info.nelms(), info.toString());
  if (info.nbytes() > 0) std::memcpy(out.data, src, static_cast<size_t>(info.nbytes()));
  io.outComplete(id);
}

// One replica's inputs (queues per stream) and recorded anchors.
class ReplicaStepIO::View final : public IStepIO {
public:
  View(const ReplicaStepIO &owner, int64_t replica) : owner_(owner), replica_(replica) {}

  void clear() {
    for (auto &[id, q] : inputs_) {
      for (size_t i = 0; i < q.staged; ++i) q.items[i].data = ConstVoidData();
      q.staged = q.read = 0;
    }
    for (auto &[id, k] : written_) k = 0;
    anchorCount_ = 0;
  }

  // The step IO's data stays valid for the whole run when it lives in the
  // step's arrays or the step IO handed over its own copy; else it is copied.
  void stage(IStepIO &io, const TensorId &id, int64_t numElements, bool arrays) {
    Queue &q = inputs_[id];
    if (q.staged == q.items.size()) q.items.emplace_back();
    Staged &s = q.items[q.staged++];
    s.data = io.in(id, numElements, false);
    if (!arrays && !s.data.owned) {
      s.bytes.resize(static_cast<size_t>(s.data.info.nbytes()));
      if (!s.bytes.empty()) std::memcpy(s.bytes.data(), s.data.data, s.bytes.size());
      s.data.data = s.bytes.data();
    }
    io.inComplete(id, numElements);
  }

  ConstVoidData in(TensorId id, int64_t, bool) override {
    auto it = inputs_.find(id);
    if (it == inputs_.end() || it->second.staged == 0)
      throw internal_error("replica {} reads input '{}', which was not staged for it", replica_, id);
    const Queue &q = it->second;
    return q.items[q.read % q.staged].data;
  }

  void inComplete(TensorId id, int64_t) override { ++inputs_.at(id).read; }

  MutableVoidData out(TensorId id, int64_t numElements) override {
    auto info = owner_.anchorInfo_.find(id);
    if (info == owner_.anchorInfo_.end() || info->second.nelms() != numElements)
      throw internal_error("replica {} writes anchor '{}' with {} elements, which is not recorded", replica_, id,
                           numElements);
    if (anchorCount_ == anchors_.size()) anchors_.emplace_back();
    Anchor &a = anchors_[anchorCount_++];
    a.id = &info->first;
    a.info = &info->second;
    a.k = written_[id]++;
    a.bytes.resize(static_cast<size_t>(a.info->nbytes()));
    MutableVoidData d;
    d.data = a.bytes.data();
    d.info = *a.info;
    return d;
  }

  // Records in the order (k, write order): the order writeAnchors takes them in.
  void sortAnchors() {
    order_.resize(anchorCount_);
    for (size_t i = 0; i < anchorCount_; ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), [&](size_t x, size_t y) { return anchors_[x].k < anchors_[y].k; });
    next_ = 0;
  }

  // Writes the records of round k (this replica's k-th value of each anchor) to io.
  void writeRound(IStepIO &io, int64_t k) {
    for (; next_ < order_.size() && anchors_[order_[next_]].k == k; ++next_) {
      const Anchor &a = anchors_[order_[next_]];
      writeAnchorValue(io, *a.id, *a.info, a.bytes.data());
    }
  }

  int64_t rounds() const { return anchorCount_ ? anchors_[order_.back()].k + 1 : 0; }

private:
  struct Staged {
    ConstVoidData data;
    std::vector<char> bytes;  // the copy data points to, when copied
  };
  struct Queue {
    std::vector<Staged> items;
    size_t staged = 0, read = 0;
  };
  struct Anchor {
    const TensorId *id;
    const TensorInfo *info;
    int64_t k;  // the anchor's k-th value written by this replica
    std::vector<char> bytes;
  };
  const ReplicaStepIO &owner_;
  int64_t replica_;
  std::map<TensorId, Queue> inputs_;
  std::map<TensorId, int64_t> written_;
  std::vector<Anchor> anchors_;
  size_t anchorCount_ = 0;
  std::vector<size_t> order_;
  size_t next_ = 0;
};

ReplicaStepIO::ReplicaStepIO(int64_t replicas, std::map<TensorId, TensorInfo> anchors)
    : anchorInfo_(std::move(anchors)) {
  for (int64_t r = 0; r < replicas; ++r) views_.push_back(std::make_unique<View>(*this, r));
}

ReplicaStepIO::~ReplicaStepIO() = default;

void ReplicaStepIO::clear() {
  for (auto &v : views_) v->clear();
}

void ReplicaStepIO::stageInput(IStepIO &io, int64_t replica, const TensorId &id, int64_t numElements) {
  const bool arrays = dynamic_cast<const StepIOGeneric *>(&io) != nullptr;
  views_.at(static_cast<size_t>(replica))->stage(io, id, numElements, arrays);
}

IStepIO &ReplicaStepIO::replicaIO(int64_t r) { return *views_.at(static_cast<size_t>(r)); }

void ReplicaStepIO::writeAnchors(IStepIO &io) {
  int64_t rounds = 0;
  for (auto &v : views_) {
    v->sortAnchors();
    rounds = std::max(rounds, v->rounds());
  }
  for (int64_t k = 0; k < rounds; ++k)
    for (auto &v : views_) v->writeRound(io, k);
  clear();
}

} // namespace popart::popx
