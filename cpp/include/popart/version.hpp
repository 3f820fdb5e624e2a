// Library version (mirrors the Python package version).
#pragma once
#include <string>

namespace popart {
struct VersionNumber {
  int major, minor, point;
};
std::string versionString();   // "0.1.0"
VersionNumber versionNumber();
std::string packageHash();     // build identifier ("popart-cpu")
} // namespace popart
