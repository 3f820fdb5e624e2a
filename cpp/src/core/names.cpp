#include "popart/names.hpp"
#include <tuple>

namespace popart {

bool OperatorIdentifier::operator<(const OperatorIdentifier &o) const {
  return std::tie(domain, type, version) < std::tie(o.domain, o.type, o.version);
}

std::string toString(const OperatorIdentifier &id) {
  return id.domain + "." + id.type + ":" + std::to_string(id.version);
}

#define POPART_RESERVED_PREFIX(fn, value) \
  std::string fn() { return value; }
#include "popart/reserved_prefixes.inc"
#undef POPART_RESERVED_PREFIX

const std::vector<std::pair<std::string, std::string>> &reservedPrefixFunctions() {
  static const std::vector<std::pair<std::string, std::string>> table{
#define POPART_RESERVED_PREFIX(fn, value) {#fn, value},
#include "popart/reserved_prefixes.inc"
#undef POPART_RESERVED_PREFIX
  };
  return table;
}

std::vector<std::string> reservedOptimizerPrefixes() {
  std::vector<std::string> v{reservedLossScalingPrefix()};
  for (const auto &[fn, prefix] : reservedPrefixFunctions())
    if (prefix.find("___default___") != std::string::npos || prefix.find("___specific___") != std::string::npos)
      v.push_back(prefix);
  return v;
}

std::vector<std::string> reservedOptimizerStatePrefixes() {
  return {reservedAcclPrefix(), reservedAccl1Prefix(), reservedAccl2Prefix(), reservedAccl3Prefix(),
          reservedStepPrefix(), reservedAccumPrefix()};
}

std::vector<std::string> reservedAccumulatorPrefixes() {
  return {reservedAcclPrefix(),  reservedAcclToReducePrefix(), reservedAcclToUpdatePrefix(),
          reservedAcclFinalOutPrefix(), reservedAccl1Prefix(), reservedAccl2Prefix(),
          reservedAccl3Prefix(), reservedAccumPrefix()};
}

std::vector<std::string> reservedPrefixes() {
  std::vector<std::string> v;
  for (const auto &[fn, prefix] : reservedPrefixFunctions()) v.push_back(prefix);
  return v;
}

} // namespace popart
