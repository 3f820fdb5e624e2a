// Where a tensor lives (TensorLocation) and how a graph input is streamed
// (InputSettings). On the CPU every location is host memory; the settings are
// kept so models and scripts written for the IPU carry them unchanged.
#pragma once
#include "popart/commgroup.hpp"
#include <vector>

namespace popart {

enum class TensorStorage { OnChip = 0, OffChip = 1, N };
enum class TileSet { Compute = 0, IO = 1, Undefined = 2, N };
enum class ReplicatedTensorSharding { Off = 0, On = 1, N };
enum class ExchangeStrategy { JustInTime = 0, OverlapInnerLoop, OverlapLoops, OverlapStep, N };
enum class ReplicatedStreamMode { Replicate = 0, Broadcast, N };

struct TensorLocation {
  TensorLocation() = default;
  explicit TensorLocation(TensorStorage s) : storage(s) {}
  TensorLocation(TensorStorage s, ReplicatedTensorSharding r) : storage(s), replicatedTensorSharding(r) {}
  TensorLocation(TensorStorage s, TileSet load, TileSet store, ReplicatedTensorSharding r)
      : storage(s), loadTileSet(load), storageTileSet(store), replicatedTensorSharding(r) {}
  TensorLocation(TensorStorage s, TileSet load, TileSet store, ReplicatedTensorSharding r,
                 CommGroup domain)
      : storage(s), loadTileSet(load), storageTileSet(store), replicatedTensorSharding(r),
        shardingDomain(domain) {}

  TensorStorage storage = TensorStorage::OnChip;
  TileSet loadTileSet = TileSet::Compute;
  TileSet storageTileSet = TileSet::Compute;
  ReplicatedTensorSharding replicatedTensorSharding = ReplicatedTensorSharding::Off;
  CommGroup shardingDomain;

  /// The form stored in a node attribute: [storage, loadTileSet, storageTileSet,
  /// replicatedTensorSharding, shardingDomain type, shardingDomain size].
  std::vector<int64_t> serialize() const {
    return {int64_t(storage), int64_t(loadTileSet), int64_t(storageTileSet),
            int64_t(replicatedTensorSharding), int64_t(shardingDomain.type),
            int64_t(shardingDomain.replicaGroupSize)};
  }
  static TensorLocation deserialize(const std::vector<int64_t> &v) {
    TensorLocation l;
    auto at = [&v](size_t i) { return i < v.size() ? v[i] : 0; };
    l.storage = TensorStorage(at(0));
    l.loadTileSet = TileSet(at(1));
    l.storageTileSet = TileSet(at(2));
    l.replicatedTensorSharding = ReplicatedTensorSharding(at(3));
    l.shardingDomain = CommGroup(CommGroupType(at(4)), unsigned(at(5)));
    return l;
  }
  bool operator==(const TensorLocation &o) const { return serialize() == o.serialize(); }
  bool operator!=(const TensorLocation &o) const { return !(*this == o); }
};

/// How a graph input is streamed from the host.
struct InputSettings {
  InputSettings() = default;
  InputSettings(TileSet t, ExchangeStrategy e) : tileSet(t), exchangeStrategy(e) {}
  explicit InputSettings(ReplicatedStreamMode m) : replicatedStreamMode(m) {}
  TileSet tileSet = TileSet::Compute;
  ExchangeStrategy exchangeStrategy = ExchangeStrategy::JustInTime;
  ReplicatedStreamMode replicatedStreamMode = ReplicatedStreamMode::Replicate;
  bool isDefault() const {
    return tileSet == TileSet::Compute && exchangeStrategy == ExchangeStrategy::JustInTime &&
           replicatedStreamMode == ReplicatedStreamMode::Replicate;
  }
};

} // namespace popart
