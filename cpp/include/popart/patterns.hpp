// Which graph rewrites run. Patterns register by name with the levels they
// belong to; a Patterns object is the set of enabled names plus the in-place switch.
#pragma once
#include "popart/opidentifiers.hpp"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace popart {

class Op;
class Graph;

enum class PatternsLevel { NoPatterns = 0, Minimal, Default, All };

/// One rewrite: `matches` decides, `apply` rewrites and returns true on change.
class Pattern {
public:
  virtual ~Pattern() = default;
  virtual bool matches(Op *op) const = 0;
  virtual bool apply(Op *op) const = 0;
};

/// A selection of patterns. Levels as in PopART: NoPatterns enables nothing; Minimal the
/// mandatory patterns; Default the mandatory and default ones plus InPlace; All everything.
class Patterns {
public:
  Patterns();  // PatternsLevel::Default
  explicit Patterns(PatternsLevel level);
  explicit Patterns(const std::vector<std::string> &names);
  static Patterns create(const std::vector<std::string> &names) { return Patterns(names); }

  Patterns &enablePattern(const std::string &name, bool enable);
  bool isPatternEnabled(const std::string &name) const;
  Patterns &enableInPlace(bool v) { inplace_ = v; return *this; }
  bool isInPlaceEnabled() const { return inplace_; }
  Patterns &enableUpdateInplacePrioritiesForIpu(bool v) { updateInplacePrioritiesForIpu_ = v; return *this; }
  bool isUpdateInplacePrioritiesForIpuEnabled() const { return updateInplacePrioritiesForIpu_; }
  Patterns &enableRuntimeAsserts(bool v) { runtimeAsserts_ = v; return *this; }
  bool getRuntimeAssertsOn() const { return runtimeAsserts_; }
  std::vector<std::string> getAllPatternNames() const;
  std::vector<std::string> getEnabledPatternNames() const;
  PatternsLevel level() const { return level_; }
  /// Applies enabled patterns (in registration order) until none matches.
  bool applyAll(Graph &graph) const;
  bool operator==(const Patterns &o) const;

  // registry
  static void registerPattern(const std::string &name, std::vector<PatternsLevel> levels,
                              bool mandatory, std::shared_ptr<Pattern> pattern);
  static std::vector<std::string> getAllRegisteredPatternNames();
  static bool isMandatory(const std::string &name);
  /// True for every name enablePattern accepts (registered patterns, InPlace, UpdateInplacePrioritiesForIpu).
  static bool isPattern(const std::string &name);
  /// Throws naming the first mandatory pattern that is disabled (checked at session creation when
  /// runtime asserts are on, as PopART does).
  void ensureAllMandatoryPreAliasPatternsAreEnabled() const;

private:
  PatternsLevel level_ = PatternsLevel::Default;
  std::map<std::string, bool> enabled_;
  bool inplace_ = true;
  bool updateInplacePrioritiesForIpu_ = false;
  bool runtimeAsserts_ = true;
};

#define POPART_REGISTER_PATTERN(CLASS, NAME, MANDATORY, ...)                                        \
  static const bool POPART_UNIQUE_NAME(popartPatternRegistrar_) = [] {                              \
    ::popart::Patterns::registerPattern(NAME, {__VA_ARGS__}, MANDATORY, std::make_shared<CLASS>()); \
    return true;                                                                                    \
  }()

} // namespace popart
