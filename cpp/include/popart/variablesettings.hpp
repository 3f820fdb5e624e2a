// How a variable is shared between replicas and returned to the host.
#pragma once
#include "popart/commgroup.hpp"

namespace popart {

enum class VariableRetrievalMode;  // tensor.hpp: OnePerGroup = 0, AllReduceReplicas, AllReplicas

class VariableSettings {
public:
  VariableSettings() = default;
  explicit VariableSettings(CommGroup group) : group_(group) {}
  explicit VariableSettings(VariableRetrievalMode mode) : mode_(mode) {}
  VariableSettings(CommGroup group, VariableRetrievalMode mode) : group_(group), mode_(mode) {}

  const CommGroup &getSharedVariableDomain() const { return group_; }
  VariableRetrievalMode getRetrievalMode() const { return mode_; }

  /// Number of distinct values of the variable across `replicationFactor` replicas.
  unsigned getGroupCount(unsigned replicationFactor) const {
    switch (group_.type) {
    case CommGroupType::All: return 1;
    case CommGroupType::Ungrouped: return replicationFactor;
    default:
      return group_.replicaGroupSize ? replicationFactor / group_.replicaGroupSize : 1;
    }
  }
  /// Replicas sharing each value.
  unsigned getRealGroupSize(unsigned replicationFactor) const {
    auto n = getGroupCount(replicationFactor);
    return n ? replicationFactor / n : replicationFactor;
  }
  /// Copies returned to the host: one per group, or one per replica (AllReplicas).
  unsigned numReplicasReturningVariable(unsigned replicationFactor) const {
    return static_cast<int>(mode_) == 2 ? replicationFactor : getGroupCount(replicationFactor);
  }
  bool operator==(const VariableSettings &o) const { return group_ == o.group_ && mode_ == o.mode_; }

private:
  CommGroup group_;
  VariableRetrievalMode mode_ = static_cast<VariableRetrievalMode>(0);
};

} // namespace popart
