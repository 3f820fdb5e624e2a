// The process-wide registry of named Transforms, a few built-in ones under
// PopART's names, and the custom-transform checkpoints of the IR pipeline
// (SessionOptions::experimentalSettings.customTransformApplierSettings).
#include "popart/transforms/transform.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/sessionoptions.hpp"
#include "transforms/custom_transforms.hpp"
#include "transforms/prune.hpp"
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace popart {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::size_t, std::unique_ptr<Transform>> byId;
  std::map<std::string, const Transform *> byName;
};

Registry &registry() {
  static Registry r;
  return r;
}

/// Prune: removes ops and tensors that no anchor, output or side effect needs.
class PruneTransform final : public Transform {
public:
  bool apply(Graph &graph) const override { return prune(graph); }
  std::size_t getId() const override { return std::hash<std::string>()("Prune"); }
  std::string getName() const override { return "Prune"; }
};

const bool pruneRegistered = Transform::registerTransform(new PruneTransform);

const std::vector<std::string> &checkpoints() {
  static const std::vector<std::string> names{"Fwd0", "Fwd1", "Bwd0", "PreAlias", "MainLoops", "Final"};
  return names;
}

} // namespace

bool Transform::registerTransform(Transform *transform) {
  std::unique_ptr<Transform> owned(transform);
  if (!owned) throw error("Transform::registerTransform: null transform");
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const std::string name = owned->getName();
  if (r.byId.count(owned->getId()) || r.byName.count(name))
    throw error("a transform with the id or name of '{}' is registered already", name);
  r.byName[name] = owned.get();
  r.byId[owned->getId()] = std::move(owned);
  return true;
}

bool Transform::applyTransform(std::size_t transformId, Graph &graph) {
  const Transform *t = nullptr;
  {
    auto &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byId.find(transformId);
    if (it == r.byId.end()) throw error("no transform is registered with id {}", transformId);
    t = it->second.get();
  }
  logging::transform::debug("applying transform '{}'", t->getName());
  return t->apply(graph);
}

const Transform *Transform::findByName(const std::string &name) {
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byName.find(name);
  return it == r.byName.end() ? nullptr : it->second;
}

std::vector<std::string> Transform::getRegisteredNames() {
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto &[name, t] : r.byName) names.push_back(name);
  return names;
}

void checkCustomTransformSettings(const Ir &ir) {
  for (const auto &[point, names] : ir.getSessionOptions().experimentalSettings.customTransformApplierSettings) {
    const auto &valid = checkpoints();
    if (std::find(valid.begin(), valid.end(), point) == valid.end())
      throw error("experimentalSettings.customTransformApplierSettings: unknown checkpoint '{}' (expected one of "
                  "{})", point, valid);
    for (const auto &name : names)
      if (!Transform::findByName(name))
        throw error("experimentalSettings.customTransformApplierSettings['{}']: no transform named '{}' is "
                    "registered (registered: {})", point, name, Transform::getRegisteredNames());
  }
}

void applyCustomTransforms(Ir &ir, const std::string &checkpoint) {
  const auto &settings = ir.getSessionOptions().experimentalSettings.customTransformApplierSettings;
  auto it = settings.find(checkpoint);
  if (it == settings.end()) return;
  for (const auto &name : it->second) {
    logging::transform::info("custom transform '{}' at checkpoint {}", name, checkpoint);
    Transform::applyTransform(Transform::findByName(name)->getId(), ir.getMainGraph());
  }
}

} // namespace popart
