// PopART's reserved tensor-id prefixes (popart/tensornames.hpp in PopART).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace popart {

#define POPART_RESERVED_PREFIX(fn, value) std::string fn();
#include "popart/reserved_prefixes.inc"
#undef POPART_RESERVED_PREFIX

/// Prefixes of optimizer hyper-parameter tensors (default and weight-specific values, loss scaling).
std::vector<std::string> reservedOptimizerPrefixes();
/// Prefixes of optimizer state Variables (Accl___, Accl1___ ... Step___, Accum___).
std::vector<std::string> reservedOptimizerStatePrefixes();
/// Prefixes of accumulator tensors (Accl___ and its reduction/update/output stages, Accl1___ ... Accum___).
std::vector<std::string> reservedAccumulatorPrefixes();
/// Every reserved prefix.
std::vector<std::string> reservedPrefixes();
/// Every reserved*Prefix function as (function name, prefix), in declaration order.
const std::vector<std::pair<std::string, std::string>> &reservedPrefixFunctions();

} // namespace popart
