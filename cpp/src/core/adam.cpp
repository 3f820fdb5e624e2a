// Adam family: g~ = g (+ wd*w for L2); m' = b1*m + (1-b1)*g~; v' = b2*v + (1-b2)*g~^2
// (AdaMax: max(b2*v, |g~|)); bias-corrected by t' = t + 1; u = m~/(sqrt(v~)+eps) (+ wd*w
// for Decay); w' = w - lr*u, Lamb scaling the step by min(|w|, mwn)/|u|.
#include "optimizer_params.hpp"
#include "popart/adam.hpp"
#include "popart/error.hpp"
#include "popart/names.hpp"

namespace popart {
namespace {

std::vector<optparams::Param> adamParams(OptimizerValueMap &lr, OptimizerValueMap &wd, OptimizerValueMap &b1,
                                         OptimizerValueMap &b2, OptimizerValueMap &eps, OptimizerValueMap &mwn) {
  return {{"learningRate", {"defaultLearningRate"}, &lr, {0.1f, true}},
          {"weightDecay", {"defaultWeightDecay"}, &wd, {0, true}},
          {"beta1", {"defaultBeta1"}, &b1, {0.9f, true}},
          {"beta2", {"defaultBeta2"}, &b2, {0.999f, true}},
          {"eps", {"defaultEps"}, &eps, {1e-6f, true}},
          {"maxWeightNorm", {"defaultMaxWeightNorm", "maxWeightNorm"}, &mwn, {10.0f, true}}};
}

bool biasCorrected(AdamMode m) { return m == AdamMode::Adam || m == AdamMode::Lamb || m == AdamMode::AdaMax; }

} // namespace

Adam::Adam(const OptimizerParams &p, AdamMode mode, WeightDecayMode wdm, DataType accumType, DataType accl1Type,
           DataType accl2Type, std::vector<ClipNormSettings> clipNorms, bool scaledOptimizerState)
    : Adam({}, {}, {}, {}, {}, optparams::pick(p, {"lossScaling"}, {1, true}), {}, mode, wdm, accumType, accl1Type,
           accl2Type, std::move(clipNorms), scaledOptimizerState) {
  optparams::setDefaults("Adam", p, adamParams(lrs_, wds_, b1s_, b2s_, epss_, mwns_), {"lossScaling"});
}

Adam::Adam(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2, OptimizerValue eps,
           OptimizerValue ls, OptimizerValue mwn, AdamMode mode, WeightDecayMode wdm, DataType accumType,
           DataType accl1Type, DataType accl2Type, std::vector<ClipNormSettings> clipNorms,
           bool scaledOptimizerState)
    : Optimizer(ls, std::move(clipNorms)), lrs_(lr), wds_(wd), b1s_(b1), b2s_(b2), epss_(eps), mwns_(mwn),
      mode_(mode), wdm_(wdm), accumType_(optparams::checkStateType("Adam", "accum_type", accumType)),
      accl1Type_(optparams::checkStateType("Adam", "accl1_type", accl1Type)),
      accl2Type_(optparams::checkStateType("Adam", "accl2_type", accl2Type)), scaled_(scaledOptimizerState) {}

void Adam::insertSpecific(const TensorId &w, const OptimizerParams &p) {
  optparams::insertSpecific("Adam", w, p, adamParams(lrs_, wds_, b1s_, b2s_, epss_, mwns_));
}

std::map<std::string, const OptimizerValueMap *> Adam::valueMaps() const {
  return {{"learningRate", &lrs_}, {"weightDecay", &wds_}, {"beta1", &b1s_},
          {"beta2", &b2s_},        {"eps", &epss_},        {"maxWeightNorm", &mwns_}};
}

void Adam::validReplacement(const Optimizer &other) const {
  Optimizer::validReplacement(other);
  validClipNormReplacement(other);
  const auto &o = static_cast<const Adam &>(other);
  optparams::checkSame("Adam", "mode", int64_t(mode_), int64_t(o.mode_));
  optparams::checkSame("Adam", "weight decay mode", int64_t(wdm_), int64_t(o.wdm_));
  optparams::checkSame("Adam", "accum_type", int64_t(accumType_), int64_t(o.accumType_));
  optparams::checkSame("Adam", "accl1_type", int64_t(accl1Type_), int64_t(o.accl1Type_));
  optparams::checkSame("Adam", "accl2_type", int64_t(accl2Type_), int64_t(o.accl2Type_));
  optparams::checkSame("Adam", "scaled_optimizer_state setting", scaled_, o.scaled_);
  if (scaled_ && o.getLossScalingVal() != getLossScalingVal())
    throw error("cannot change lossScaling from {} to {} with scaled_optimizer_state: the stored Adam state is "
                "scaled by it", getLossScalingVal(), o.getLossScalingVal());
}

VarUpdateSpec Adam::varUpdate(const TensorId &w) const {
  VarUpdateSpec s;
  s.algorithm = "Adam";
  s.modes["mode"] = static_cast<int64_t>(mode_);
  s.modes["l2"] = wdm_ == WeightDecayMode::L2Regularization;
  s.modes["scaled"] = scaled_;
  s.hyperNames = {"learningRate", "weightDecay", "beta1", "beta2", "eps", "maxWeightNorm", "lossScaling"};
  s.hyperValues = {lrs_.get(w).val(),  wds_.get(w).val(),  b1s_.get(w).val(), b2s_.get(w).val(),
                   epss_.get(w).val(), mwns_.get(w).val(), getLossScalingVal()};
  s.state.push_back({reservedAccl1Prefix() + w, 0.0f, accl1Type_});
  s.state.push_back({reservedAccl2Prefix() + w, 0.0f, accl2Type_});
  if (biasCorrected(mode_)) s.state.push_back({reservedStepPrefix() + w, 0.0f, DataType::FLOAT, true});
  s.accumType = accumType_;
  return s;
}

} // namespace popart
