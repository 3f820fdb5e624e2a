// OptimizerValue(Map) and the parts of Optimizer shared by every optimizer.
#include "popart/error.hpp"
#include "popart/optimizer.hpp"

namespace popart {

void OptimizerValue::validReplacement(const OptimizerValue &other, const std::string &what) const {
  if (isConst_ != other.isConst_)
    throw error("cannot update {}: it was compiled as {} and the new optimizer makes it {}", what,
                isConst_ ? "const" : "non-const", other.isConst_ ? "const" : "non-const");
  if (isConst_ && val_ != other.val_)
    throw error("cannot update {} from {} to {}: it is const (compiled in); make it non-const "
                "(value, False) to change it without recompiling", what, val_, other.val_);
}

const OptimizerValue &OptimizerValueMap::get(const TensorId &weight) const {
  auto it = specific_.find(weight);
  return it == specific_.end() ? default_ : it->second;
}

bool OptimizerValueMap::allConstAndEqual() const {
  if (!default_.isConst()) return false;
  for (const auto &[id, v] : specific_)
    if (!(v == default_)) return false;
  return true;
}

void OptimizerValueMap::validReplacement(const OptimizerValueMap &other, const std::string &what) const {
  default_.validReplacement(other.default_, "the default " + what);
  if (specific_.size() != other.specific_.size())
    throw error("cannot update {}: the new optimizer has weight-specific values for other weights", what);
  for (const auto &[id, v] : specific_) {
    auto it = other.specific_.find(id);
    if (it == other.specific_.end())
      throw error("cannot update {}: the new optimizer has no specific value for weight '{}'", what, id);
    v.validReplacement(it->second, what + " of weight '" + id + "'");
  }
}

Optimizer::Optimizer(OptimizerValue lossScaling, std::vector<ClipNormSettings> clipNorms)
    : lossScaling_(lossScaling), clipNorms_(std::move(clipNorms)) {}

bool Optimizer::hasSpecific(const TensorId &weight) const {
  for (const auto &[name, map] : valueMaps())
    if (map->hasSpecific(weight)) return true;
  return false;
}

void Optimizer::validReplacement(const Optimizer &other) const {
  if (other.type() != type())
    throw error("cannot replace a {} optimizer by a {} optimizer without recompiling", type_s(), other.type_s());
  lossScaling_.validReplacement(other.lossScaling_, "lossScaling");
  auto mine = valueMaps(), theirs = other.valueMaps();
  for (const auto &[name, map] : mine) map->validReplacement(*theirs.at(name), name);
  if (clipNorms_.size() != other.clipNorms_.size())
    throw error("cannot change the clip-norm settings without recompiling");
}

} // namespace popart

namespace popart {

bool isOptimizerStateId(const TensorId &id) {
  for (const auto &p : {reservedAcclPrefix(), reservedAccl1Prefix(), reservedAccl2Prefix(), reservedAccl3Prefix(),
                        reservedStepPrefix()})
    if (id.rfind(p, 0) == 0) return true;
  return false;
}

} // namespace popart
