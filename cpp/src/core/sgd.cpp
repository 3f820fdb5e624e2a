// SGD: v' = v*mm + (1-dm)*(g + wd*w) (stored scaled by vs);
// w' = w - lr*v' (or w - lr*(g + wd*w + mm*v') with Nesterov).
#include "optimizer_params.hpp"
#include "popart/error.hpp"
#include "popart/names.hpp"

namespace popart {
namespace {

std::vector<optparams::Param> sgdParams(OptimizerValueMap &lr, OptimizerValueMap &wd, OptimizerValueMap &mm,
                                        OptimizerValueMap &dp, OptimizerValueMap &vs, OptimizerValueMap &nest) {
  return {{"learningRate", {"defaultLearningRate"}, &lr, {0.1f, true}},
          {"weightDecay", {"defaultWeightDecay"}, &wd, {0, true}},
          {"momentum", {"defaultMomentum"}, &mm, {0, true}},
          {"dampening", {"defaultDampening"}, &dp, {0, true}},
          {"velocityScaling", {"defaultVelocityScaling"}, &vs, {1, true}},
          {"nesterov", {"nesterov"}, &nest, {0, true}}};
}

} // namespace

SGD::SGD(const OptimizerParams &p, std::vector<ClipNormSettings> clipNorms, SGDAccumulatorAndMomentum accMom,
         DataType accumType, DataType accl1Type)
    : SGD({0.1f, true}, {0, true}, {0, true}, {0, true}, {1, true}, optparams::pick(p, {"lossScaling"}, {1, true}), std::move(clipNorms), accMom,
          accumType, accl1Type) {
  optparams::setDefaults("SGD", p, sgdParams(lrs_, wds_, mms_, dps_, vss_, nesterov_), {"lossScaling"});
  if (vss_.getDefault().val() == 0) throw error("SGD velocity scaling must not be 0");
}

SGD::SGD(OptimizerValue lr, OptimizerValue wd, OptimizerValue mm, OptimizerValue dp, OptimizerValue vs,
         OptimizerValue ls, std::vector<ClipNormSettings> clipNorms, SGDAccumulatorAndMomentum accMom,
         DataType accumType, DataType accl1Type)
    : Optimizer(ls, std::move(clipNorms)), lrs_(lr), wds_(wd), mms_(mm), dps_(dp), vss_(vs),
      nesterov_(OptimizerValue(0, true)), accMom_(accMom),
      accumType_(optparams::checkStateType("SGD", "accumType", accumType)),
      accl1Type_(optparams::checkStateType("SGD", "accl1Type", accl1Type)) {
  if (vs.val() == 0) throw error("SGD velocity scaling must not be 0");
}

void SGD::insertSpecific(const TensorId &w, const OptimizerParams &p) {
  optparams::insertSpecific("SGD", w, p, sgdParams(lrs_, wds_, mms_, dps_, vss_, nesterov_));
  if (vss_.get(w).val() == 0) throw error("SGD velocity scaling of weight '{}' must not be 0", w);
}

std::map<std::string, const OptimizerValueMap *> SGD::valueMaps() const {
  return {{"learningRate", &lrs_}, {"weightDecay", &wds_}, {"momentum", &mms_},
          {"dampening", &dps_},     {"velocityScaling", &vss_}, {"nesterov", &nesterov_}};
}

void SGD::validReplacement(const Optimizer &other) const {
  Optimizer::validReplacement(other);
  validClipNormReplacement(other);
  const auto &o = static_cast<const SGD &>(other);
  optparams::checkSame("SGD", "accumulator and momentum setting", int64_t(accMom_), int64_t(o.accMom_));
  optparams::checkSame("SGD", "accumType", int64_t(accumType_), int64_t(o.accumType_));
  optparams::checkSame("SGD", "accl1Type", int64_t(accl1Type_), int64_t(o.accl1Type_));
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
  if (momentum) s.state.push_back({reservedAcclPrefix() + w, 0.0f, accl1Type_});
  s.accumType = accumType_;
  return s;
}

} // namespace popart
