#include "replica_host_io.hpp"
#include "popart/error.hpp"

namespace popart::popx {

// One replica's view of the slots: its own count of loads and stores per stream.
class ReplicaHostIO::Cursor final : public IStepIO {
public:
  Cursor(ReplicaHostIO &owner, int64_t replica) : owner_(owner), replica_(replica) {
    for (const auto &[id, n] : owner.loads_) loaded_[id] = 0;
    for (const auto &[id, n] : owner.stores_) stored_[id] = 0;
  }
  void reset() {
    for (auto &[id, k] : loaded_) k = 0;
    for (auto &[id, k] : stored_) k = 0;
  }
  ConstVoidData in(TensorId id, int64_t, bool) override {
    auto it = loaded_.find(id);
    if (it == loaded_.end()) throw error("replica {} loads host stream '{}', which has no data slots", replica_, id);
    return owner_.in_.at(id)[slot(it->second++)];
  }
  void inComplete(TensorId, int64_t) override {}
  MutableVoidData out(TensorId id, int64_t) override {
    auto it = stored_.find(id);
    if (it == stored_.end()) throw error("replica {} stores host stream '{}', which has no data slots", replica_, id);
    return owner_.out_.at(id)[slot(it->second++)];
  }

private:
  size_t slot(int64_t k) const {
    return static_cast<size_t>((k % owner_.transfers_) * owner_.replicas_ + replica_);
  }
  ReplicaHostIO &owner_;
  int64_t replica_;
  std::map<TensorId, int64_t> loaded_, stored_;
};

ReplicaHostIO::ReplicaHostIO(std::map<TensorId, int64_t> loads, std::map<TensorId, int64_t> stores, int64_t replicas)
    : loads_(std::move(loads)), stores_(std::move(stores)), replicas_(replicas) {
  for (int64_t r = 0; r < replicas_; ++r) cursors_.push_back(std::make_unique<Cursor>(*this, r));
}

ReplicaHostIO::~ReplicaHostIO() = default;

void ReplicaHostIO::take(IStepIO &io, int64_t transfers) {
  for (auto &[id, v] : out_) v.clear();  // nothing to complete until this step's outputs are taken
  io_ = &io;
  transfers_ = transfers;
  const auto slots = static_cast<size_t>(transfers * replicas_);
  for (const auto &[id, n] : loads_) {
    auto &v = in_[id];
    v.clear();
    for (size_t s = 0; s < slots; ++s) {
      v.push_back(io.in(id, n, false));
      io.inComplete(id, n);
    }
  }
  for (const auto &[id, n] : stores_) {
    auto &v = out_[id];
    for (size_t s = 0; s < slots; ++s) v.push_back(io.out(id, n));
  }
  for (auto &c : cursors_) c->reset();
}

void ReplicaHostIO::finish() {
  if (!io_) return;
  IStepIO &io = *io_;
  io_ = nullptr;
  for (auto &[id, v] : in_) v.clear();  // releases inputs a callback step IO handed over
  for (auto &[id, v] : out_)
    for (size_t s = 0; s < v.size(); ++s) io.outComplete(id);
}

IStepIO &ReplicaHostIO::replicaIO(int64_t r) { return *cursors_.at(static_cast<size_t>(r)); }

} // namespace popart::popx
