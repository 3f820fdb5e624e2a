// Adam, AdamW, Lamb and AdaMax (formulas of the PopART documentation, section
// Adam). State per weight: Accl1___w (m), Accl2___w (v), Step___w (t, when the
// mode corrects bias).
#pragma once
#include "popart/optimizer.hpp"

namespace popart {

enum class AdamMode { Adam = 0, AdamNoBias, AdaMax, Lamb, LambNoBias };

class Adam : public Optimizer {
public:
  /// Keys: defaultLearningRate, defaultWeightDecay, defaultBeta1, defaultBeta2,
  /// defaultEps, defaultMaxWeightNorm (or maxWeightNorm), lossScaling. Types
  /// UNDEFINED mean the weight's type. With scaledOptimizerState, m and v hold
  /// values scaled by the loss scaling (v by its square, AdaMax's v by it).
  explicit Adam(const OptimizerParams &params, AdamMode mode = AdamMode::Adam,
                WeightDecayMode wdm = WeightDecayMode::Decay, DataType accumType = DataType::UNDEFINED,
                DataType accl1Type = DataType::FLOAT, DataType accl2Type = DataType::FLOAT,
                std::vector<ClipNormSettings> clipNorms = {}, bool scaledOptimizerState = false);
  Adam(OptimizerValue lr, OptimizerValue wd, OptimizerValue b1, OptimizerValue b2, OptimizerValue eps,
       OptimizerValue ls, OptimizerValue mwn, AdamMode mode = AdamMode::Adam,
       WeightDecayMode wdm = WeightDecayMode::Decay, DataType accumType = DataType::UNDEFINED,
       DataType accl1Type = DataType::FLOAT, DataType accl2Type = DataType::FLOAT,
       std::vector<ClipNormSettings> clipNorms = {}, bool scaledOptimizerState = false);

  OptimizerType type() const override { return OptimizerType::Adam; }
  std::string type_s() const override { return "Adam"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Adam>(*this); }
  VarUpdateSpec varUpdate(const TensorId &weight) const override;
  std::map<std::string, const OptimizerValueMap *> valueMaps() const override;
  void validReplacement(const Optimizer &other) const override;

  /// Keys: learningRate, weightDecay, beta1, beta2, eps, maxWeightNorm.
  void insertSpecific(const TensorId &weight, const OptimizerParams &params);
  const OptimizerValueMap &learningRates() const { return lrs_; }
  const OptimizerValueMap &weightDecays() const { return wds_; }
  const OptimizerValueMap &beta1s() const { return b1s_; }
  const OptimizerValueMap &beta2s() const { return b2s_; }
  const OptimizerValueMap &epss() const { return epss_; }
  const OptimizerValueMap &maxWeightNorms() const { return mwns_; }
  AdamMode getMode() const { return mode_; }
  WeightDecayMode getWeightDecayMode() const { return wdm_; }
  DataType getAccumType() const { return accumType_; }
  DataType getAccl1Type() const { return accl1Type_; }
  DataType getAccl2Type() const { return accl2Type_; }
  bool scaledOptimizerState() const { return scaled_; }

private:
  OptimizerValueMap lrs_, wds_, b1s_, b2s_, epss_, mwns_;
  AdamMode mode_;
  WeightDecayMode wdm_;
  DataType accumType_, accl1Type_, accl2Type_;
  bool scaled_;
};

} // namespace popart
