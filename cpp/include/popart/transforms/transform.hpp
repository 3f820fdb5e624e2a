// Transform: a whole-graph rewrite registered by name (PopART's
// popart/transforms/transform.hpp). Custom transforms register once
// (`static bool r = Transform::registerTransform(new MyTransform);`) and run where
// SessionOptions::experimentalSettings.customTransformApplierSettings names them.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace popart {

class Graph;

class Transform {
public:
  virtual ~Transform() = default;
  /// Rewrites `graph`; returns whether it changed anything.
  virtual bool apply(Graph &graph) const = 0;
  virtual std::size_t getId() const = 0;
  virtual std::string getName() const = 0;

  /// Takes ownership of `transform`; throws when its id or name is taken. Returns true.
  static bool registerTransform(Transform *transform);
  /// Applies the transform registered with `transformId` (throws when there is none).
  static bool applyTransform(std::size_t transformId, Graph &graph);
  /// The transform registered under `name`, or nullptr.
  static const Transform *findByName(const std::string &name);
  /// Names of every registered transform, sorted.
  static std::vector<std::string> getRegisteredNames();
};

} // namespace popart
