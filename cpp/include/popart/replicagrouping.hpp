// A partition of numReplicas replicas into equal groups: group g holds replicas
// start(g) + k * stride for k < groupSize (PopART's ReplicaGrouping).
#pragma once
#include "popart/commgroup.hpp"
#include <string>
#include <vector>

namespace popart {

class ReplicaGrouping {
public:
  /// Throws when groupSize * stride does not tile numReplicas.
  ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize);
  explicit ReplicaGrouping(unsigned numReplicas) : ReplicaGrouping(numReplicas, 1, numReplicas) {}
  unsigned getNumReplicas() const { return numReplicas_; }
  unsigned getStride() const { return stride_; }
  unsigned getGroupSize() const { return groupSize_; }
  unsigned getNumGroups() const { return numReplicas_ / groupSize_; }
  unsigned getGroupAt(unsigned replica) const;
  unsigned getIndexInGroupAt(unsigned replica) const;
  unsigned getReplicaAt(unsigned group, unsigned index = 0) const;
  std::vector<unsigned> getReplicasAt(unsigned group) const;
  /// The grouping whose groups take one replica from each group of this one.
  ReplicaGrouping getTranspose() const;
  std::string str() const;
  bool operator==(const ReplicaGrouping &o) const {
    return numReplicas_ == o.numReplicas_ && stride_ == o.stride_ && groupSize_ == o.groupSize_;
  }
  bool operator!=(const ReplicaGrouping &o) const { return !(*this == o); }

private:
  void checkReplica(unsigned replica) const;
  unsigned numReplicas_, stride_, groupSize_;
};

/// The ReplicaGrouping `group` describes for `numReplicas` replicas.
ReplicaGrouping toReplicaGrouping(const CommGroup &group, unsigned numReplicas);

} // namespace popart
