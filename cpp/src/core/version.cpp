#include "popart/version.hpp"

namespace popart {
std::string versionString() { return "0.1.0"; }
VersionNumber versionNumber() { return {0, 1, 0}; }
std::string packageHash() { return "popart-cpu"; }
} // namespace popart
