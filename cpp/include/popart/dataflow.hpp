// What a session returns (anchors and how) and how many batches one run() does.
#pragma once
#include "popart/names.hpp"
#include "popart/tensorlocation.hpp"
#include <map>
#include <vector>

namespace popart {

enum class AnchorReturnTypeId { Final = 0, EveryN, All, Sum };

/// How an anchored tensor is returned: its value at every micro-batch (All),
/// the last one (Final), every N-th (EveryN) or the sum over the step (Sum).
/// The tile set and exchange strategy are IPU transfer settings: kept and
/// reported, without effect on the CPU.
class AnchorReturnType {
public:
  AnchorReturnType();  // All
  explicit AnchorReturnType(const std::string &artString, TileSet tileSet = TileSet::Compute,
                            ExchangeStrategy exchangeStrategy = ExchangeStrategy::JustInTime);
  AnchorReturnType(const std::string &artString, int returnPeriod, TileSet tileSet = TileSet::Compute,
                   ExchangeStrategy exchangeStrategy = ExchangeStrategy::JustInTime);
  AnchorReturnTypeId id() const { return id_; }
  int rp() const { return returnPeriod_; }
  const std::string &str() const { return name_; }
  TileSet tileSet() const { return tileSet_; }
  ExchangeStrategy exchangeStrategy() const { return exchangeStrategy_; }

private:
  AnchorReturnTypeId id_;
  int returnPeriod_ = 0;
  std::string name_;
  TileSet tileSet_ = TileSet::Compute;
  ExchangeStrategy exchangeStrategy_ = ExchangeStrategy::JustInTime;
};

class DataFlow {
public:
  DataFlow();
  DataFlow(int batchesPerStep, const std::map<TensorId, AnchorReturnType> &anchors);
  DataFlow(int batchesPerStep, const std::vector<TensorId> &anchorIds,
           const AnchorReturnType &art = AnchorReturnType("All"));

  bool isAnchored(const TensorId &id) const { return anchors_.count(id) != 0; }
  /// Throws popart::error when `id` is not anchored.
  const AnchorReturnType &art(const TensorId &id) const;
  const std::vector<TensorId> &anchors() const { return order_; }
  int nAnchors() const { return static_cast<int>(order_.size()); }
  int batchesPerStep() const { return batchesPerStep_; }
  void setBatchesPerStep(int n);
  /// How many values of an anchor one step returns (1 for Final/Sum).
  int64_t numReturned(const TensorId &id, int64_t accumulationFactor) const;

private:
  void check() const;
  int batchesPerStep_ = 1;
  std::map<TensorId, AnchorReturnType> anchors_;
  std::vector<TensorId> order_;
};

} // namespace popart
