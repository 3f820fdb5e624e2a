// Pattern registry and the Patterns selection object.
#include "popart/patterns.hpp"
#include "core/op_context.hpp"
#include "core/registrant.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include <algorithm>
#include <typeinfo>

namespace popart {
namespace {

struct PatternEntry {
  std::string name;
  std::vector<PatternsLevel> levels;
  bool mandatory;
  std::shared_ptr<Pattern> pattern;
};

std::vector<PatternEntry> &patternRegistry() {
  static std::vector<PatternEntry> r;
  return r;
}

const PatternEntry *findPattern(const std::string &name) {
  for (const auto &e : patternRegistry())
    if (e.name == name) return &e;
  return nullptr;
}

bool inLevel(const PatternEntry &e, PatternsLevel level) {
  if (level == PatternsLevel::All) return true;
  return std::find(e.levels.begin(), e.levels.end(), level) != e.levels.end();
}

} // namespace

void Patterns::registerPattern(const std::string &name, std::vector<PatternsLevel> levels, bool mandatory,
                               std::shared_ptr<Pattern> pattern) {
  if (findPattern(name)) return;
  if (pattern) keepResident(&typeid(*pattern));  // a library that registered stays loaded
  patternRegistry().push_back({name, std::move(levels), mandatory, std::move(pattern)});
}

std::vector<std::string> Patterns::getAllRegisteredPatternNames() {
  std::vector<std::string> names;
  for (const auto &e : patternRegistry()) names.push_back(e.name);
  return names;
}

bool Patterns::isMandatory(const std::string &name) {
  const PatternEntry *e = findPattern(name);
  return e && e->mandatory;
}

Patterns::Patterns() : Patterns(PatternsLevel::Default) {}

Patterns::Patterns(PatternsLevel level) : level_(level) {
  inplace_ = level == PatternsLevel::Default || level == PatternsLevel::All;
  updateInplacePrioritiesForIpu_ = inplace_;
}

Patterns::Patterns(const std::vector<std::string> &names) : level_(PatternsLevel::NoPatterns) {
  inplace_ = false;
  for (const auto &n : names) {
    if (n == "InPlace") inplace_ = true;
    else enablePattern(n, true);
  }
}

Patterns &Patterns::enablePattern(const std::string &name, bool enable) {
  if (name == "InPlace") return enableInPlace(enable);
  if (name == "UpdateInplacePrioritiesForIpu") return enableUpdateInplacePrioritiesForIpu(enable);
  if (!findPattern(name))
    throw error("unknown pattern '{}'; known patterns: {}", name, getAllRegisteredPatternNames());
  enabled_[name] = enable;
  return *this;
}

bool Patterns::isPatternEnabled(const std::string &name) const {
  if (name == "InPlace") return inplace_;
  if (name == "UpdateInplacePrioritiesForIpu") return updateInplacePrioritiesForIpu_;
  const PatternEntry *e = findPattern(name);
  if (!e) throw error("unknown pattern '{}'", name);
  auto it = enabled_.find(name);
  return it != enabled_.end() ? it->second : inLevel(*e, level_);
}

std::vector<std::string> Patterns::getAllPatternNames() const { return getAllRegisteredPatternNames(); }

std::vector<std::string> Patterns::getEnabledPatternNames() const {
  std::vector<std::string> names;
  for (const auto &e : patternRegistry())
    if (isPatternEnabled(e.name)) names.push_back(e.name);
  return names;
}

bool Patterns::isPattern(const std::string &name) {
  return name == "InPlace" || name == "UpdateInplacePrioritiesForIpu" || findPattern(name) != nullptr;
}

void Patterns::ensureAllMandatoryPreAliasPatternsAreEnabled() const {
  for (const auto &e : patternRegistry())
    if (e.mandatory && !isPatternEnabled(e.name))
      throw error("the mandatory pattern '{}' is disabled; enable it (Patterns.enablePattern('{}', True)) or turn "
                  "this check off with Patterns.enableRuntimeAsserts(False)",
                  e.name, e.name);
}

bool Patterns::operator==(const Patterns &o) const {
  return getEnabledPatternNames() == o.getEnabledPatternNames() && inplace_ == o.inplace_;
}

bool Patterns::applyAll(Graph &graph) const {
  bool any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &e : patternRegistry()) {
      if (!isPatternEnabled(e.name)) continue;
      for (Op *op : graph.getOpSchedule()) {
        auto &ex = op->settings.excludePatterns;
        if (std::find(ex.begin(), ex.end(), e.name) != ex.end() || !e.pattern->matches(op)) continue;
        bool applied = false;
        // apply() may erase op before it throws: the error's context is taken first
        withOpContext(opContextOf(*op), ("applying pattern " + e.name + " to").c_str(),
                      [&] { applied = e.pattern->apply(op); });
        if (applied) {
          logging::pattern::trace("applied {}", e.name);
          changed = any = true;
          break;  // the schedule changed
        }
      }
    }
  }
  return any;
}

} // namespace popart
