// How a variable is shared between replicas and returned to the host.
// Replicas in one group (a CommGroup, or a stride and group size as in a
// ReplicaGrouping) hold one value of the variable; the host holds one value per
// group, shaped shapeOnHost() = [groups, *shape] when there is more than one.
#pragma once
#include "popart/commgroup.hpp"
#include "popart/names.hpp"
#include "popart/replicagrouping.hpp"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace popart {

class Ir;
enum class VariableRetrievalMode;  // tensor.hpp: OnePerGroup = 0, AllReduceReplicas, AllReplicas

class VariableSettings {
public:
  VariableSettings() = default;
  explicit VariableSettings(CommGroup group) : group_(group) {}
  explicit VariableSettings(VariableRetrievalMode mode) : mode_(mode) {}
  VariableSettings(CommGroup group, VariableRetrievalMode mode) : group_(group), mode_(mode) {}
  /// Groups as a ReplicaGrouping makes them: replicas start + k * stride, k < groupSize.
  VariableSettings(unsigned stride, unsigned groupSize);
  VariableSettings(unsigned stride, unsigned groupSize, VariableRetrievalMode mode);

  const CommGroup &getSharedVariableDomain() const { return group_; }
  VariableRetrievalMode getRetrievalMode() const { return mode_; }
  /// True when built from a CommGroup, false when from a stride and group size.
  bool isUsingCommGroup() const { return useCommGroup_; }
  /// The CommGroup's type (Consecutive, Orthogonal, ... for a stride and group size that one describes).
  CommGroupType getCommGroupType() const;
  /// Replicas per group as given (0 for CommGroupType::All: every replica).
  unsigned getGroupSize() const;
  /// Distance between consecutive members of a group; throws for an Orthogonal
  /// CommGroup, whose stride depends on the number of replicas (getReplicaGrouping(n)).
  unsigned getStride() const;
  /// The groups over `numReplicas` replicas; throws when they do not tile them.
  ReplicaGrouping getReplicaGrouping(unsigned numReplicas) const;
  /// Number of distinct values of the variable across `numReplicas` replicas.
  unsigned getGroupCount(unsigned numReplicas) const;
  /// Replicas sharing each value.
  unsigned getRealGroupSize(unsigned numReplicas) const;
  /// The replica whose value stands for group `group` (its lowest replica).
  unsigned getGroupRepresentative(unsigned group) const;
  /// Copies returned to the host: one per group, or one per replica (AllReplicas).
  unsigned numReplicasReturningVariable(unsigned numReplicas) const;
  /// The replicas of each group, in group order.
  std::vector<std::vector<std::int64_t>> groups(unsigned numReplicas) const;
  /// The shape on each replica of a variable given on the host as `hostShape`
  /// (its leading dimension, the groups, removed when there is more than one
  /// group); throws naming `name` when that dimension is not the group count.
  Shape shapeOnReplica(Shape hostShape, unsigned numReplicas, const TensorId &name) const;
  /// The host shape of a variable shaped `replicaShape` on each replica.
  Shape shapeOnHost(Shape replicaShape, unsigned numReplicas) const;
  /// Throws when the settings are inconsistent (a group size of 0, an unknown type or mode).
  void verify() const;
  /// The CommGroup of the same groups over `numReplicas` replicas (collectives
  /// need one); throws naming `name` when no CommGroup describes them.
  CommGroup toCommGroup(unsigned numReplicas, const TensorId &name) const;
  bool operator==(const VariableSettings &o) const;
  bool operator!=(const VariableSettings &o) const { return !(*this == o); }
  std::string str() const;

private:
  CommGroup group_;
  VariableRetrievalMode mode_ = static_cast<VariableRetrievalMode>(0);
  bool useCommGroup_ = true;
  unsigned stride_ = 1, groupSize_ = 0;
};

/// Model metadata key prefix of a weight's VariableSettings (Builder::addInitializedInputTensor).
inline constexpr const char *sVariableSettingsMetadataPrefix = "__variable_settings/";
/// The metadata value of `s` ("type,size,mode", or "S,stride,groupSize,mode") and back.
std::string variableSettingsToMetadata(const VariableSettings &s);
VariableSettings variableSettingsFromMetadata(const std::string &value, const TensorId &name);

/// The VariableSettings of the Variables of an IR imported from ONNX that are
/// not the default (one value for all replicas, returned once): the model's
/// weights, and the optimizer state and accumulators of those weights.
std::map<TensorId, VariableSettings> nonDefaultVariableSettings(const Ir &ir);

/// Host data of such a Variable holds 1, getGroupCount or numReplicas copies
/// ("slots") of the replica-shaped value, one after the other: the slot replica
/// `replica` reads its value from.
unsigned hostSlotOfReplica(const VariableSettings &s, unsigned numReplicas, unsigned slots, unsigned replica);

} // namespace popart
