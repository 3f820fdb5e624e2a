// Array-backed step IO: cursors advance by one micro-batch per call and wrap
// at the end of the step.
#include "popart/stepio.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"

namespace popart {

void ConstVoidData::store(std::vector<char> &&d, const TensorInfo &i) {
  owned = std::make_shared<std::vector<char>>(std::move(d));
  data = owned->data();
  info = i;
}

ConstVoidData StepIOGeneric::in(TensorId id, int64_t n, bool) {
  auto it = inputs_.find(id);
  if (it == inputs_.end()) throw runtime_error("no input data provided for tensor '{}'", id);
  auto &c = it->second;
  int64_t total = c.buffer.info.nelms();
  if (n == 0) return ConstVoidData(c.buffer.data, TensorInfo(c.buffer.info.dataType(), Shape{0}));
  if (total < n || total % n != 0)
    throw runtime_error("input '{}' has {} elements, which is not a multiple of the {} elements "
                        "of one micro-batch", id, total, n);
  if (c.offset >= total) c.offset = 0;
  const char *base = static_cast<const char *>(c.buffer.data);
  ConstVoidData d(base + c.offset * dataTypeSize(c.buffer.info.dataType()),
                  TensorInfo(c.buffer.info.dataType(), Shape{n}));
  return d;
}

void StepIOGeneric::inComplete(TensorId id, int64_t n) { inputs_.at(id).offset += n; }

MutableVoidData StepIOGeneric::out(TensorId id, int64_t n) {
  auto it = outputs_.find(id);
  if (it == outputs_.end()) throw runtime_error("no output buffer provided for anchor '{}'", id);
  auto &c = it->second;
  int64_t total = c.buffer.info.nelms();
  if (c.offset + n > total) c.offset = 0;
  if (n > total)
    throw runtime_error("output buffer of anchor '{}' has {} elements, fewer than the {} of one return", id, total, n);
  MutableVoidData d;
  d.data = static_cast<char *>(c.buffer.data) + c.offset * dataTypeSize(c.buffer.info.dataType());
  d.info = TensorInfo(c.buffer.info.dataType(), Shape{n});
  c.offset += n;
  return d;
}

std::vector<TensorId> StepIOGeneric::inputIds() const {
  std::vector<TensorId> ids;
  for (const auto &kv : inputs_) ids.push_back(kv.first);
  return ids;
}

void StepIOGeneric::beginStep(const std::map<TensorId, int64_t> &expectedIn,
                                      const std::map<TensorId, int64_t> &expectedOut) {
  for (auto &kv : inputs_) {
    kv.second.offset = 0;
    if (!expectedIn.count(kv.first))
      logging::session::warn("the step IO has data for '{}', which is not an input of the session: ignored",
                             kv.first);
  }
  for (auto &kv : outputs_) kv.second.offset = 0;
  if (!runtimeAssertsEnabled()) return;
  for (const auto &[id, n] : expectedIn) {
    auto it = inputs_.find(id);
    if (it == inputs_.end()) throw runtime_error("no input data provided for tensor '{}'", id);
    if (it->second.buffer.info.nelms() != n)
      throw runtime_error("input '{}' has {} elements ({}), expected {} for one step", id,
                          it->second.buffer.info.nelms(), it->second.buffer.info.toString(), n);
  }
  for (const auto &[id, c] : outputs_)
    if (!expectedOut.count(id)) throw runtime_error("output buffer given for '{}', which is not an anchor", id);
  for (const auto &[id, n] : expectedOut) {
    auto it = outputs_.find(id);
    if (it == outputs_.end()) throw runtime_error("no output buffer provided for anchor '{}'", id);
    if (it->second.buffer.info.nelms() != n)
      throw runtime_error("output buffer of anchor '{}' has {} elements, expected {}", id,
                          it->second.buffer.info.nelms(), n);
  }
}

StepIO::StepIO(std::map<TensorId, IArray &> inputs, std::map<TensorId, IArray &> outputs) {
  for (auto &[id, a] : inputs) addInput(id, {a.data(), TensorInfo(a.dataType(), a.shape())});
  for (auto &[id, a] : outputs) addOutput(id, {a.data(), TensorInfo(a.dataType(), a.shape())});
}

MutableVoidData WeightsIO::weight(TensorId id) const {
  auto it = weights_.find(id);
  if (it == weights_.end()) throw error("WeightsIO has no buffer for weight '{}'", id);
  return it->second;
}

} // namespace popart
