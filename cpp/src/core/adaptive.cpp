// Adaptive family (AdaGrad, RMSProp, CenteredRMSProp, AdaDelta): the update
// formulas are listed in popart/adaptive.hpp and implemented by the
// "Adaptive" var-update kernel.
#include "optimizer_params.hpp"
#include "popart/adaptive.hpp"
#include "popart/error.hpp"
#include "popart/names.hpp"
#include <utility>

namespace popart {
namespace {

std::vector<optparams::Param> adaptiveParams(OptimizerValueMap &lr, OptimizerValueMap &wd, OptimizerValueMap &a,
                                             OptimizerValueMap &mm, OptimizerValueMap &eps) {
  return {{"learningRate", {"defaultLearningRate"}, &lr, {0.1f, true}},
          {"weightDecay", {"defaultWeightDecay"}, &wd, {0, true}},
          {"alpha", {"defaultAlpha"}, &a, {0.99f, true}},
          {"momentum", {"defaultMomentum"}, &mm, {0, true}},
          {"eps", {"defaultEps"}, &eps, {1e-6f, true}}};
}

} // namespace

Adaptive::Adaptive(const OptimizerParams &p, AdaptiveMode mode, WeightDecayMode wdm, DataType accumType,
                   DataType accl1Type, DataType accl2Type, DataType accl3Type, bool rmspropTFVariant,
                   std::vector<ClipNormSettings> clipNormSettings)
    : Optimizer(optparams::pick(p, {"lossScaling"}, {1, true}), std::move(clipNormSettings)), mode_(mode), wdm_(wdm),
      accumType_(optparams::checkStateType("Adaptive", "accum_type", accumType)),
      accl1Type_(optparams::checkStateType("Adaptive", "accl1_type", accl1Type)),
      accl2Type_(optparams::checkStateType("Adaptive", "accl2_type", accl2Type)),
      accl3Type_(optparams::checkStateType("Adaptive", "accl3_type", accl3Type)), tfVariant_(rmspropTFVariant) {
  optparams::setDefaults("Adaptive", p, adaptiveParams(lrs_, wds_, alphas_, mms_, epss_), {"lossScaling"});
}

void Adaptive::insertSpecific(const TensorId &w, const OptimizerParams &p) {
  optparams::insertSpecific("Adaptive", w, p, adaptiveParams(lrs_, wds_, alphas_, mms_, epss_));
}

std::map<std::string, const OptimizerValueMap *> Adaptive::valueMaps() const {
  return {{"learningRate", &lrs_}, {"weightDecay", &wds_}, {"alpha", &alphas_}, {"momentum", &mms_}, {"eps", &epss_}};
}

void Adaptive::validReplacement(const Optimizer &other) const {
  Optimizer::validReplacement(other);
  const auto &o = static_cast<const Adaptive &>(other);
  optparams::checkSame("Adaptive", "mode", int64_t(mode_), int64_t(o.mode_));
  optparams::checkSame("Adaptive", "weight decay mode", int64_t(wdm_), int64_t(o.wdm_));
  optparams::checkSame("Adaptive", "accum_type", int64_t(accumType_), int64_t(o.accumType_));
  optparams::checkSame("Adaptive", "accl1_type", int64_t(accl1Type_), int64_t(o.accl1Type_));
  optparams::checkSame("Adaptive", "accl2_type", int64_t(accl2Type_), int64_t(o.accl2Type_));
  optparams::checkSame("Adaptive", "accl3_type", int64_t(accl3Type_), int64_t(o.accl3Type_));
  optparams::checkSame("Adaptive", "rmspropTFVariant setting", tfVariant_, o.tfVariant_);
}

VarUpdateSpec Adaptive::varUpdate(const TensorId &w) const {
  VarUpdateSpec s;
  s.algorithm = "Adaptive";
  const OptimizerValue &mm = mms_.get(w);
  bool momentum = mode_ != AdaptiveMode::AdaDelta && !(mm.isConst() && mm.val() == 0.0f);
  bool tf = tfVariant_ && (mode_ == AdaptiveMode::RMSProp || mode_ == AdaptiveMode::CenteredRMSProp);
  s.modes["mode"] = static_cast<int64_t>(mode_);
  s.modes["l2"] = wdm_ == WeightDecayMode::L2Regularization;
  s.modes["momentum"] = momentum;
  s.modes["tf"] = tf;
  s.hyperNames = {"learningRate", "weightDecay", "alpha", "momentum", "eps"};
  s.hyperValues = {lrs_.get(w).val(), wds_.get(w).val(), alphas_.get(w).val(), mm.val(), epss_.get(w).val()};
  s.state.push_back({reservedAccl1Prefix() + w, tf ? 1.0f : 0.0f, accl1Type_});
  if (mode_ == AdaptiveMode::CenteredRMSProp || mode_ == AdaptiveMode::AdaDelta)
    s.state.push_back({reservedAccl2Prefix() + w, 0.0f, accl2Type_});
  if (momentum) s.state.push_back({reservedAccl3Prefix() + w, 0.0f, accl3Type_});
  s.accumType = accumType_;
  return s;
}

} // namespace popart
