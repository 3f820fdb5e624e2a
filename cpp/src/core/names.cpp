#include "popart/names.hpp"
#include <tuple>

namespace popart {

bool OperatorIdentifier::operator<(const OperatorIdentifier &o) const {
  return std::tie(domain, type, version) < std::tie(o.domain, o.type, o.version);
}

std::string toString(const OperatorIdentifier &id) {
  return id.domain + "." + id.type + ":" + std::to_string(id.version);
}

std::string reservedGradientPrefix() { return "Gradient___"; }
std::string reservedAccumPrefix() { return "Accum___"; }
std::string reservedAcclPrefix() { return "Accl___"; }
std::string reservedAccl1Prefix() { return "Accl1___"; }
std::string reservedAccl2Prefix() { return "Accl2___"; }
std::string reservedAccl3Prefix() { return "Accl3___"; }
std::string reservedStepPrefix() { return "Step___"; }
std::string reservedUpdatedVarPrefix() { return "UpdatedVar___"; }
std::string reservedLossScalingPrefix() { return "lossScaling_"; }
std::string reservedRandomSeedPrefix() { return "randomSeed___"; }
std::string reservedDefaultScaledLearningRate0Prefix() { return "scaledLearningRate0___default___"; }
std::string reservedSpecificScaledLearningRate0Prefix() { return "scaledLearningRate0___specific___"; }

std::vector<std::string> reservedOptimizerPrefixes() {
  return {reservedDefaultScaledLearningRate0Prefix(), reservedSpecificScaledLearningRate0Prefix(),
          reservedLossScalingPrefix()};
}

std::vector<std::string> reservedPrefixes() {
  std::vector<std::string> v{reservedGradientPrefix(), reservedAccumPrefix(), reservedAcclPrefix(),
                             reservedAccl1Prefix(),    reservedAccl2Prefix(), reservedAccl3Prefix(),
                             reservedStepPrefix(),     reservedUpdatedVarPrefix(),
                             reservedRandomSeedPrefix()};
  for (auto &p : reservedOptimizerPrefixes()) v.push_back(p);
  return v;
}

} // namespace popart
