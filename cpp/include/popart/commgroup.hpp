// Groups of replicas that take part in a collective (or share a variable).
#pragma once
#include <cstdint>

namespace popart {

/// PopART's values: All replicas; Consecutive blocks of replicaGroupSize;
/// Orthogonal (stride = number of groups); Ungrouped (each replica alone).
enum class CommGroupType { All = 0, Consecutive, Orthogonal, Ungrouped, N };

struct CommGroup {
  CommGroup() = default;
  CommGroup(CommGroupType type_, unsigned groupSize) : type(type_), replicaGroupSize(groupSize) {}
  CommGroupType type = CommGroupType::All;
  unsigned replicaGroupSize = 0;
  bool operator==(const CommGroup &o) const {
    return type == o.type && replicaGroupSize == o.replicaGroupSize;
  }
  bool operator!=(const CommGroup &o) const { return !(*this == o); }
};

} // namespace popart
