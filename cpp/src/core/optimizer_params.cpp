// Dictionary parsing and replacement checks shared by the optimizers.
#include "optimizer_params.hpp"
#include "popart/error.hpp"
#include <algorithm>

namespace popart {
namespace optparams {
namespace {

std::string knownKeys(const std::vector<Param> &params, const std::vector<std::string> &extra, bool specific) {
  std::string s;
  auto add = [&](const std::string &k) { s += (s.empty() ? "" : ", ") + k; };
  for (const auto &p : params) add(specific ? p.key : p.defaultKeys.front());
  if (!specific)
    for (const auto &k : extra) add(k);
  return s;
}

} // namespace

OptimizerValue pick(const OptimizerParams &p, const std::vector<std::string> &keys, OptimizerValue unset) {
  for (const auto &k : keys) {
    auto it = p.find(k);
    if (it != p.end()) return OptimizerValue(it->second);
  }
  return unset;
}

void setDefaults(const std::string &optimizer, const OptimizerParams &p, const std::vector<Param> &params,
                 const std::vector<std::string> &extra) {
  for (const auto &[k, v] : p) {
    bool known = std::find(extra.begin(), extra.end(), k) != extra.end();
    for (const auto &prm : params)
      known = known || std::find(prm.defaultKeys.begin(), prm.defaultKeys.end(), k) != prm.defaultKeys.end();
    if (!known) throw error("unknown {} parameter '{}' (expected one of {})", optimizer, k, knownKeys(params, extra, false));
  }
  for (const auto &prm : params) *prm.map = OptimizerValueMap(pick(p, prm.defaultKeys, prm.unset));
}

void insertSpecific(const std::string &optimizer, const TensorId &w, const OptimizerParams &p,
                    const std::vector<Param> &params) {
  for (const auto &[k, v] : p) {
    bool known = false;
    for (const auto &prm : params)
      known = known || k == prm.key ||
              std::find(prm.defaultKeys.begin(), prm.defaultKeys.end(), k) != prm.defaultKeys.end();
    if (!known)
      throw error("unknown {} parameter '{}' for weight '{}' (expected one of {})", optimizer, k, w,
                  knownKeys(params, {}, true));
  }
  for (const auto &prm : params) {
    std::vector<std::string> keys{prm.key};
    keys.insert(keys.end(), prm.defaultKeys.begin(), prm.defaultKeys.end());
    prm.map->insertSpecific(w, pick(p, keys, prm.map->get(w)));
  }
}

DataType checkStateType(const std::string &optimizer, const std::string &what, DataType t) {
  if (t != DataType::UNDEFINED && t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE)
    throw error("{} {} must be FLOAT, FLOAT16 (or UNDEFINED for the weight's type), not {}", optimizer, what,
                toString(t));
  return t;
}

void checkSame(const std::string &optimizer, const std::string &what, int64_t compiled, int64_t replacement) {
  if (compiled != replacement)
    throw error("cannot change the {} {} without recompiling (create a new session)", optimizer, what);
}

} // namespace optparams

void Optimizer::validClipNormReplacement(const Optimizer &other) const {
  const auto &a = clipNorms_, &b = other.clipNorms_;
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) same = a[i].weightIds == b[i].weightIds && a[i].maxNorm == b[i].maxNorm;
  if (!same) throw error("cannot change the clip-norm settings without recompiling (create a new session)");
}

} // namespace popart
