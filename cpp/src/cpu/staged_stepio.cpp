#include "staged_stepio.hpp"
#include "popart/datatype.hpp"
#include "popart/error.hpp"
#include <cstring>

namespace popart::popx {

void StagedStepIO::clear() {
  for (auto &[id, q] : inputs_) q.staged = q.read = 0;
  anchorCount_ = 0;
}

void StagedStepIO::stageInput(IStepIO &io, const TensorId &id, int64_t numElements) {
  ConstVoidData d = io.in(id, numElements, false);
  Queue &q = inputs_[id];
  if (q.staged == q.items.size()) q.items.emplace_back();
  Staged &s = q.items[q.staged++];
  s.info = d.info;
  s.bytes.resize(static_cast<size_t>(d.info.nbytes()));
  if (!s.bytes.empty()) std::memcpy(s.bytes.data(), d.data, s.bytes.size());
  io.inComplete(id, numElements);
}

ConstVoidData StagedStepIO::in(TensorId id, int64_t, bool) {
  auto it = inputs_.find(id);
  if (it == inputs_.end() || it->second.read >= it->second.staged)
    throw internal_error("input '{}' was not staged for this micro-batch", id);
  const Staged &s = it->second.items[it->second.read];
  ConstVoidData d;
  d.data = s.bytes.data();
  d.info = s.info;
  return d;
}

void StagedStepIO::inComplete(TensorId id, int64_t) { ++inputs_.at(id).read; }

MutableVoidData StagedStepIO::out(TensorId id, int64_t numElements) {
  auto info = anchorInfo_.find(id);
  if (info == anchorInfo_.end() || info->second.nelms() != numElements)
    throw internal_error("anchor '{}' is not staged with {} elements", id, numElements);
  if (anchorCount_ == anchors_.size()) anchors_.emplace_back();
  Anchor &a = anchors_[anchorCount_++];
  a.microBatch = microBatch_;
  a.id = id;
  a.info = info->second;
  a.bytes.resize(static_cast<size_t>(a.info.nbytes()));
  MutableVoidData d;
  d.data = a.bytes.data();
  d.info = a.info;
  return d;
}

void StagedStepIO::replayAnchors(IStepIO &io, int64_t m) const {
  for (size_t i = 0; i < anchorCount_; ++i) {
    const Anchor &a = anchors_[i];
    if (a.microBatch != m) continue;
    MutableVoidData out = io.out(a.id, a.info.nelms());
    if (out.info.isSet() && !hostHolds(out.info.dataType(), a.info.dataType()))
      throw runtime_error("output buffer of anchor '{}' has type {}, expected {}", a.id, out.info.data_type(),
                          a.info.data_type());
    if (out.info.isSet() && out.info.nelms() != a.info.nelms())
      throw runtime_error("output buffer of anchor '{}' has {} elements for one return, expected {} ({})", a.id,
                          out.info.nelms(), a.info.nelms(), a.info.toString());
    std::memcpy(out.data, a.bytes.data(), a.bytes.size());
    io.outComplete(a.id);
  }
}

} // namespace popart::popx
