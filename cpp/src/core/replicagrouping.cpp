#include "popart/replicagrouping.hpp"
#include "popart/error.hpp"

namespace popart {

ReplicaGrouping::ReplicaGrouping(unsigned numReplicas, unsigned stride, unsigned groupSize)
    : numReplicas_(numReplicas), stride_(stride), groupSize_(groupSize) {
  if (numReplicas == 0 || stride == 0 || groupSize == 0)
    throw error("ReplicaGrouping(numReplicas={}, stride={}, groupSize={}): all must be positive", numReplicas,
                stride, groupSize);
  if (groupSize == 1 && stride != 1)
    throw error("ReplicaGrouping(numReplicas={}, stride={}, groupSize=1): a group of one has stride 1", numReplicas,
                stride);
  if (numReplicas % (stride * groupSize) != 0)
    throw error("ReplicaGrouping(numReplicas={}, stride={}, groupSize={}): stride * groupSize must divide the "
                "number of replicas", numReplicas, stride, groupSize);
}

void ReplicaGrouping::checkReplica(unsigned replica) const {
  if (replica >= numReplicas_) throw error("replica {} is out of range: there are {} replicas", replica, numReplicas_);
}

unsigned ReplicaGrouping::getGroupAt(unsigned replica) const {
  checkReplica(replica);
  unsigned block = stride_ * groupSize_;
  return (replica / block) * stride_ + replica % stride_;
}

unsigned ReplicaGrouping::getIndexInGroupAt(unsigned replica) const {
  checkReplica(replica);
  return (replica % (stride_ * groupSize_)) / stride_;
}

unsigned ReplicaGrouping::getReplicaAt(unsigned group, unsigned index) const {
  if (group >= getNumGroups()) throw error("group {} is out of range: there are {} groups", group, getNumGroups());
  if (index >= groupSize_) throw error("index {} is out of range: groups have {} replicas", index, groupSize_);
  unsigned block = stride_ * groupSize_;
  return (group / stride_) * block + group % stride_ + index * stride_;
}

std::vector<unsigned> ReplicaGrouping::getReplicasAt(unsigned group) const {
  std::vector<unsigned> rs;
  for (unsigned i = 0; i < groupSize_; ++i) rs.push_back(getReplicaAt(group, i));
  return rs;
}

ReplicaGrouping ReplicaGrouping::getTranspose() const {
  unsigned groups = getNumGroups();
  if (groups == 1) return ReplicaGrouping(numReplicas_, 1, 1);
  if (stride_ == 1) return ReplicaGrouping(numReplicas_, groupSize_, groups);
  if (stride_ * groupSize_ == numReplicas_) return ReplicaGrouping(numReplicas_, 1, stride_);
  throw error("{} has no transpose that is a ReplicaGrouping", str());
}

std::string ReplicaGrouping::str() const {
  return "ReplicaGrouping(numReplicas=" + std::to_string(numReplicas_) + ", stride=" + std::to_string(stride_) +
         ", groupSize=" + std::to_string(groupSize_) + ")";
}

ReplicaGrouping toReplicaGrouping(const CommGroup &group, unsigned numReplicas) {
  unsigned size = group.replicaGroupSize;
  switch (group.type) {
  case CommGroupType::All: return ReplicaGrouping(numReplicas);
  case CommGroupType::Ungrouped: return ReplicaGrouping(numReplicas, 1, 1);
  case CommGroupType::Consecutive: return ReplicaGrouping(numReplicas, 1, size);
  case CommGroupType::Orthogonal:
    if (size == 0 || numReplicas % size != 0)
      throw error("CommGroup(Orthogonal, {}) does not divide {} replicas", size, numReplicas);
    return ReplicaGrouping(numReplicas, numReplicas / size, size);
  default: throw error("CommGroup type {} has no ReplicaGrouping", static_cast<int>(group.type));
  }
}

} // namespace popart
