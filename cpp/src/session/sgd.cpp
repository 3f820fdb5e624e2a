// SGD: v' = v*mm + (1-dm)*(g + wd*w) (stored scaled by vs);
// w' = w - lr*v' (or w - lr*(g + wd*w + mm*v') with Nesterov).
#include "popart/error.hpp"
#include "popart/names.hpp"
#include "popart/optimizer.hpp"

namespace popart {
namespace {

const std::vector<std::string> &sgdKeys() {
  static const std::vector<std::string> keys{"defaultLearningRate", "defaultWeightDecay", "defaultMomentum",
                                             "defaultDampening",    "defaultVelocityScaling", "lossScaling",
                                             "nesterov"};
  return keys;
}

OptimizerValue pick(const std::map<std::string, std::pair<float, bool>> &p, const std::string &key, OptimizerValue def) {
  auto it = p.find(key);
  return it == p.end() ? def : OptimizerValue(it->second);
}

void checkKeys(const std::map<std::string, std::pair<float, bool>> &p, bool specific) {
  for (const auto &[k, v] : p) {
    bool ok = false;
    for (const auto &known : sgdKeys()) {
      std::string name = specific && known.rfind("default", 0) == 0 ? known.substr(7) : known;
      if (specific && !name.empty()) name[0] = static_cast<char>(std::tolower(name[0]));
      ok = ok || k == name || k == known;
    }
    if (!ok)
      throw error("unknown SGD parameter '{}' (expected defaultLearningRate, defaultWeightDecay, defaultMomentum, "
                  "defaultDampening, defaultVelocityScaling, lossScaling or nesterov)", k);
  }
}

} // namespace

SGD::SGD(const std::map<std::string, std::pair<float, bool>> &p, std::vector<ClipNormSettings> clipNorms,
         SGDAccumulatorAndMomentum accMom)
    : SGD(pick(p, "defaultLearningRate", {0.1f, true}), pick(p, "defaultWeightDecay", {0, true}),
          pick(p, "defaultMomentum", {0, true}), pick(p, "defaultDampening", {0, true}),
          pick(p, "defaultVelocityScaling", {1, true}), pick(p, "lossScaling", {1, true}), std::move(clipNorms),
          accMom) {
  checkKeys(p, false);
  if (p.count("nesterov")) nesterov_ = OptimizerValueMap(OptimizerValue(p.at("nesterov")));
}

SGD::SGD(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp, OptimizerValue vs,
         OptimizerValue ls, std::vector<ClipNormSettings> clipNorms, SGDAccumulatorAndMomentum accMom)
    : Optimizer(ls, std::move(clipNorms)), lrs_(lr), wds_(wd), mms_(mm), dps_(dp), vss_(vs),
      nesterov_(OptimizerValue(0, true)), accMom_(accMom) {
  if (vs.val() == 0) throw error("SGD velocity scaling must not be 0");
}

void SGD::insertSpecific(const TensorId &w, const std::map<std::string, std::pair<float, bool>> &p) {
  checkKeys(p, true);
  auto set = [&](OptimizerValueMap &m, const char *a, const char *b) {
    if (p.count(a)) m.insertSpecific(w, OptimizerValue(p.at(a)));
    else if (p.count(b)) m.insertSpecific(w, OptimizerValue(p.at(b)));
    else if (!m.hasSpecific(w)) m.insertSpecific(w, m.getDefault());
  };
  set(lrs_, "learningRate", "defaultLearningRate");
  set(wds_, "weightDecay", "defaultWeightDecay");
  set(mms_, "momentum", "defaultMomentum");
  set(dps_, "dampening", "defaultDampening");
  set(vss_, "velocityScaling", "defaultVelocityScaling");
  set(nesterov_, "nesterov", "nesterov");
}

std::map<std::string, const OptimizerValueMap *> SGD::valueMaps() const {
  return {{"learningRate", &lrs_}, {"weightDecay", &wds_}, {"momentum", &mms_},
          {"dampening", &dps_},     {"velocityScaling", &vss_}, {"nesterov", &nesterov_}};
}

VarUpdateSpec SGD::varUpdate(const TensorId &w) const {
  VarUpdateSpec s;
  s.algorithm = "SGD";
  const OptimizerValue &mm = mms_.get(w);
  bool momentum = !(mm.isConst() && mm.val() == 0.0f);
  s.modes["momentum"] = momentum;
  s.modes["nesterov"] = nesterov_.get(w).val() != 0.0f;
  s.hyperNames = {"learningRate", "weightDecay", "momentum", "dampening", "velocityScaling"};
  s.hyperValues = {lrs_.get(w).val(), wds_.get(w).val(), mm.val(), dps_.get(w).val(), vss_.get(w).val()};
  if (momentum) s.state.emplace_back(reservedAcclPrefix() + w, 0.0f);
  return s;
}

} // namespace popart
