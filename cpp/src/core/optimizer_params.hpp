// Dictionary construction shared by SGD, Adam and Adaptive: defaults come from
// {"defaultLearningRate": (0.1, False), ...}, weight-specific values from
// insertSpecific(w, {"learningRate": ...}).
#pragma once
#include "popart/optimizer.hpp"

namespace popart::optparams {

/// One hyper-parameter: its insertSpecific key, the keys that set its default
/// (the first is the canonical one), its map and the value when unset.
struct Param {
  std::string key;
  std::vector<std::string> defaultKeys;
  OptimizerValueMap *map;
  OptimizerValue unset;
};

/// The value of the first of `keys` present in p, else `unset`.
OptimizerValue pick(const OptimizerParams &p, const std::vector<std::string> &keys, OptimizerValue unset);
/// Sets each map's default; throws naming an unknown key (`extra` keys are known too).
void setDefaults(const std::string &optimizer, const OptimizerParams &p, const std::vector<Param> &params,
                 const std::vector<std::string> &extra);
/// Weight-specific values; parameters p lacks keep the weight's current value.
void insertSpecific(const std::string &optimizer, const TensorId &w, const OptimizerParams &p,
                    const std::vector<Param> &params);
/// A floating state/accumulator type (or UNDEFINED); throws naming `what` otherwise.
DataType checkStateType(const std::string &optimizer, const std::string &what, DataType t);
/// Throws naming `what` when the two differ (settings fixed at compile time).
void checkSame(const std::string &optimizer, const std::string &what, int64_t compiled, int64_t replacement);

} // namespace popart::optparams
