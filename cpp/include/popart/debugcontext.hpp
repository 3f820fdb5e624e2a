// DebugContext: the name PopART's API methods take last (debugContext = {}),
// from a string or a C string; the Builder uses it as the node or tensor name.
#pragma once
#include <string>
#include <utility>

namespace popart {

class DebugContext {
public:
  DebugContext(const char *name = "") : name_(name ? name : "") {}
  DebugContext(std::string name) : name_(std::move(name)) {}
  /// The name given (empty: none).
  const std::string &getPathName() const { return name_; }

private:
  std::string name_;
};

} // namespace popart
