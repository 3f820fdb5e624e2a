#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/sessionoptions.hpp"
#include <cctype>

namespace popart {

AnchorReturnType::AnchorReturnType() : AnchorReturnType("All") {}

namespace {

// The user guide spells return types in capitals ("ALL", "EVERYN"), the API reference in
// CamelCase ("All", "EveryN"); both are accepted.
bool isAnchorTypeName(const std::string &a, const char *b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return i == a.size() && !b[i];
}

} // namespace

AnchorReturnType::AnchorReturnType(const std::string &s, TileSet tileSet, ExchangeStrategy exchange)
    : name_(s), tileSet_(tileSet), exchangeStrategy_(exchange) {
  if (isAnchorTypeName(s, "All")) id_ = AnchorReturnTypeId::All;
  else if (isAnchorTypeName(s, "Final")) id_ = AnchorReturnTypeId::Final;
  else if (isAnchorTypeName(s, "Sum")) id_ = AnchorReturnTypeId::Sum;
  else if (isAnchorTypeName(s, "EveryN")) throw error("AnchorReturnType 'EveryN' needs a return period: AnchorReturnType(\"EveryN\", N)");
  else throw error("unknown AnchorReturnType '{}' (expected All, Final, EveryN or Sum)", s);
}

AnchorReturnType::AnchorReturnType(const std::string &s, int returnPeriod, TileSet tileSet, ExchangeStrategy exchange)
    : returnPeriod_(returnPeriod), name_(s), tileSet_(tileSet), exchangeStrategy_(exchange) {
  if (!isAnchorTypeName(s, "EveryN")) {
    *this = AnchorReturnType(s, tileSet, exchange);
    return;
  }
  if (returnPeriod <= 0) throw error("AnchorReturnType EveryN needs a positive return period, got {}", returnPeriod);
  id_ = AnchorReturnTypeId::EveryN;
}

DataFlow::DataFlow() = default;

DataFlow::DataFlow(int bps, const std::map<TensorId, AnchorReturnType> &anchors)
    : batchesPerStep_(bps), anchors_(anchors) {
  for (const auto &kv : anchors) order_.push_back(kv.first);
  check();
}

DataFlow::DataFlow(int bps, const std::vector<TensorId> &ids, const AnchorReturnType &art) : batchesPerStep_(bps) {
  for (const auto &id : ids) {
    if (anchors_.count(id)) throw error("tensor '{}' is anchored twice in the DataFlow", id);
    anchors_.emplace(id, art);
    order_.push_back(id);
  }
  check();
}

void DataFlow::check() const {
  if (batchesPerStep_ <= 0) throw error("batchesPerStep must be positive, got {}", batchesPerStep_);
  for (const auto &[id, art] : anchors_)
    if (art.id() == AnchorReturnTypeId::EveryN && batchesPerStep_ % art.rp() != 0)
      throw error("anchor '{}': EveryN return period {} must divide batchesPerStep {}", id, art.rp(),
                  batchesPerStep_);
}

const AnchorReturnType &DataFlow::art(const TensorId &id) const {
  auto it = anchors_.find(id);
  if (it == anchors_.end()) throw error("tensor '{}' is not anchored in the DataFlow", id);
  return it->second;
}

void DataFlow::setBatchesPerStep(int n) {
  batchesPerStep_ = n;
  check();
}

int64_t DataFlow::numReturned(const TensorId &id, int64_t accumulationFactor) const {
  const auto &a = art(id);
  switch (a.id()) {
  case AnchorReturnTypeId::All: return batchesPerStep_ * accumulationFactor;
  case AnchorReturnTypeId::EveryN: return batchesPerStep_ / a.rp() * accumulationFactor;
  default: return 1;
  }
}

const TensorInfo &InputShapeInfo::get(const TensorId &id) const {
  auto it = infos_.find(id);
  if (it == infos_.end()) throw error("InputShapeInfo has no entry for tensor '{}'", id);
  return it->second;
}

int64_t SessionOptions::getGlobalReplicationFactor() const {
  return enableDistributedReplicatedGraphs ? globalReplicationFactor : replicationFactor();
}

} // namespace popart
