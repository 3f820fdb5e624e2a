// VariableSettings: groups of replicas sharing one value of a variable, the
// host shapes that follow from them, and their encoding in the model metadata.
#include "popart/variablesettings.hpp"
#include "onnx/model.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/tensor.hpp"
#include "popart/tensornames.hpp"
#include <cstdio>

namespace popart {
namespace {

bool returnsAllReplicas(VariableRetrievalMode m) { return m == VariableRetrievalMode::AllReplicas; }

} // namespace

VariableSettings::VariableSettings(unsigned stride, unsigned groupSize)
    : useCommGroup_(false), stride_(stride), groupSize_(groupSize) {}

VariableSettings::VariableSettings(unsigned stride, unsigned groupSize, VariableRetrievalMode mode)
    : mode_(mode), useCommGroup_(false), stride_(stride), groupSize_(groupSize) {}

CommGroupType VariableSettings::getCommGroupType() const {
  if (useCommGroup_) return group_.type;
  if (groupSize_ == 1) return CommGroupType::Ungrouped;
  return stride_ == 1 ? CommGroupType::Consecutive : CommGroupType::Orthogonal;
}

unsigned VariableSettings::getGroupSize() const {
  if (!useCommGroup_) return groupSize_;
  switch (group_.type) {
  case CommGroupType::All: return 0;
  case CommGroupType::Ungrouped: return 1;
  default: return group_.replicaGroupSize;
  }
}

unsigned VariableSettings::getStride() const {
  if (!useCommGroup_) return stride_;
  if (group_.type == CommGroupType::Orthogonal)
    throw error("VariableSettings with an Orthogonal CommGroup: the stride depends on the number of replicas; "
                "use getReplicaGrouping(numReplicas).getStride()");
  return 1;
}

ReplicaGrouping VariableSettings::getReplicaGrouping(unsigned numReplicas) const {
  verify();
  if (!useCommGroup_) return ReplicaGrouping(numReplicas, stride_, groupSize_);
  return toReplicaGrouping(group_, numReplicas);
}

unsigned VariableSettings::getGroupCount(unsigned numReplicas) const {
  return getReplicaGrouping(numReplicas).getNumGroups();
}

unsigned VariableSettings::getRealGroupSize(unsigned numReplicas) const {
  return getReplicaGrouping(numReplicas).getGroupSize();
}

unsigned VariableSettings::getGroupRepresentative(unsigned group) const {
  verify();
  if (!useCommGroup_) return (group / stride_) * stride_ * groupSize_ + group % stride_;
  switch (group_.type) {
  case CommGroupType::All:
    if (group != 0) throw error("group {} is out of range: CommGroupType All has one group", group);
    return 0;
  case CommGroupType::Consecutive: return group * group_.replicaGroupSize;
  default: return group;  // Orthogonal and Ungrouped: group g starts at replica g
  }
}

unsigned VariableSettings::numReplicasReturningVariable(unsigned numReplicas) const {
  return returnsAllReplicas(mode_) ? getReplicaGrouping(numReplicas).getNumReplicas() : getGroupCount(numReplicas);
}

std::vector<std::vector<std::int64_t>> VariableSettings::groups(unsigned numReplicas) const {
  const ReplicaGrouping rg = getReplicaGrouping(numReplicas);
  std::vector<std::vector<std::int64_t>> out(rg.getNumGroups());
  for (unsigned g = 0; g < rg.getNumGroups(); ++g)
    for (unsigned r : rg.getReplicasAt(g)) out[g].push_back(r);
  return out;
}

Shape VariableSettings::shapeOnReplica(Shape hostShape, unsigned numReplicas, const TensorId &name) const {
  const unsigned n = getGroupCount(numReplicas);
  if (n == 1) return hostShape;
  if (hostShape.empty() || hostShape.front() != static_cast<int64_t>(n))
    throw error("variable '{}' has {} groups of replicas ({} over {} replicas), so its host value needs a leading "
                "dimension of {} (one value per group); its shape is {}", name, n, str(), numReplicas, n, hostShape);
  return Shape(hostShape.begin() + 1, hostShape.end());
}

Shape VariableSettings::shapeOnHost(Shape replicaShape, unsigned numReplicas) const {
  const unsigned n = getGroupCount(numReplicas);
  if (n == 1) return replicaShape;
  replicaShape.insert(replicaShape.begin(), static_cast<int64_t>(n));
  return replicaShape;
}

void VariableSettings::verify() const {
  const int mode = static_cast<int>(mode_);
  if (mode < 0 || mode > 2) throw error("VariableSettings: retrieval mode {} is not one of 0 .. 2", mode);
  if (!useCommGroup_) {
    if (stride_ < 1 || groupSize_ < 1)
      throw error("VariableSettings(stride={}, groupSize={}): both must be positive", stride_, groupSize_);
    return;
  }
  const int type = static_cast<int>(group_.type);
  if (type < 0 || type >= static_cast<int>(CommGroupType::N))
    throw error("VariableSettings: CommGroupType {} is not one of All, Consecutive, Orthogonal, Ungrouped", type);
  if ((group_.type == CommGroupType::Consecutive || group_.type == CommGroupType::Orthogonal) &&
      group_.replicaGroupSize < 1)
    throw error("VariableSettings: a {} CommGroup needs a replicaGroupSize of at least 1, got {}",
                group_.type == CommGroupType::Consecutive ? "Consecutive" : "Orthogonal", group_.replicaGroupSize);
}

CommGroup VariableSettings::toCommGroup(unsigned numReplicas, const TensorId &name) const {
  if (useCommGroup_) return group_;
  const ReplicaGrouping rg = getReplicaGrouping(numReplicas);
  if (rg.getNumGroups() == 1) return CommGroup();
  if (rg.getGroupSize() == 1) return CommGroup(CommGroupType::Ungrouped, 1);
  if (rg.getStride() == 1) return CommGroup(CommGroupType::Consecutive, rg.getGroupSize());
  if (rg.getStride() * rg.getGroupSize() == numReplicas) return CommGroup(CommGroupType::Orthogonal, rg.getGroupSize());
  throw error("variable '{}': {} has no CommGroup equivalent (stride 1 or numReplicas / groupSize), which the "
              "replicas' collectives need", name, rg.str());
}

bool VariableSettings::operator==(const VariableSettings &o) const {
  if (mode_ != o.mode_ || useCommGroup_ != o.useCommGroup_) return false;
  return useCommGroup_ ? group_ == o.group_ : stride_ == o.stride_ && groupSize_ == o.groupSize_;
}

std::string VariableSettings::str() const {
  const std::string mode = std::to_string(static_cast<int>(mode_));
  if (!useCommGroup_)
    return "VariableSettings(stride=" + std::to_string(stride_) + ", groupSize=" + std::to_string(groupSize_) +
           ", retrievalMode=" + mode + ")";
  return "VariableSettings(CommGroup(type=" + std::to_string(static_cast<int>(group_.type)) + ", size=" +
         std::to_string(group_.replicaGroupSize) + "), retrievalMode=" + mode + ")";
}

std::string variableSettingsToMetadata(const VariableSettings &s) {
  const std::string mode = std::to_string(static_cast<int>(s.getRetrievalMode()));
  if (!s.isUsingCommGroup())
    return "S," + std::to_string(s.getStride()) + "," + std::to_string(s.getGroupSize()) + "," + mode;
  const CommGroup &g = s.getSharedVariableDomain();
  return std::to_string(static_cast<int>(g.type)) + "," + std::to_string(g.replicaGroupSize) + "," + mode;
}

VariableSettings variableSettingsFromMetadata(const std::string &value, const TensorId &name) {
  int a = 0, b = 0, c = 0;
  VariableSettings s;
  if (std::sscanf(value.c_str(), "S,%d,%d,%d", &a, &b, &c) == 3 && a > 0 && b > 0)
    s = VariableSettings(static_cast<unsigned>(a), static_cast<unsigned>(b), static_cast<VariableRetrievalMode>(c));
  else if (std::sscanf(value.c_str(), "%d,%d,%d", &a, &b, &c) == 3 && b >= 0)
    s = VariableSettings(CommGroup(static_cast<CommGroupType>(a), static_cast<unsigned>(b)),
                         static_cast<VariableRetrievalMode>(c));
  else
    throw error("variable '{}': the model's VariableSettings metadata '{}' is malformed", name, value);
  s.verify();
  return s;
}

std::map<TensorId, VariableSettings> nonDefaultVariableSettings(const Ir &ir) {
  std::map<TensorId, VariableSettings> out;
  const onnxpb::Model *m = ir.getModel();
  if (!m) return out;
  const std::string prefix = sVariableSettingsMetadataPrefix;
  for (const auto &p : m->metadataProps)
    if (p.key.rfind(prefix, 0) == 0) {
      const TensorId id = p.key.substr(prefix.size());
      VariableSettings s = variableSettingsFromMetadata(p.value, id);
      if (s != VariableSettings()) out.emplace(id, s);
    }
  if (out.empty()) return out;
  // A grouped weight's optimizer state and gradient accumulator are grouped as it is.
  std::vector<std::string> prefixes = reservedOptimizerStatePrefixes();
  prefixes.push_back(reservedAccumPrefix());
  std::map<TensorId, VariableSettings> state;
  const Graph &g = ir.getMainGraph();
  for (const Tensor *t : g.getTensors().getOfType(TensorType::Variable))
    for (const auto &pre : prefixes)
      if (t->id.rfind(pre, 0) == 0) {
        auto it = out.find(t->id.substr(pre.size()));
        if (it != out.end()) state.emplace(t->id, it->second);
      }
  out.insert(state.begin(), state.end());
  return out;
}

unsigned hostSlotOfReplica(const VariableSettings &s, unsigned numReplicas, unsigned slots, unsigned replica) {
  if (slots <= 1) return 0;
  if (slots == numReplicas) return replica;
  return s.getReplicaGrouping(numReplicas).getGroupAt(replica);
}

} // namespace popart
