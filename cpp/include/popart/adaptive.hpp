// AdaGrad, RMSProp, CenteredRMSProp and AdaDelta. State per weight, as PopART:
// Accl1___w (mean square / sum of squares), Accl2___w (mean gradient of centred
// RMSProp, or AdaDelta's mean squared update), Accl3___w (momentum buffer).
#pragma once
#include "popart/optimizer.hpp"

namespace popart {

enum class AdaptiveMode { AdaGrad = 0, RMSProp, CenteredRMSProp, AdaDelta };

/// With g~ = g (+ wd*w for L2Regularization):
///   AdaGrad:  v1' = v1 + g~^2,            u = g~ / (sqrt(v1') + eps)
///   RMSProp:  v1' = a*v1 + (1-a)*g~^2,    u = g~ / (sqrt(v1') + eps)
///   Centered: v2' = a*v2 + (1-a)*g~,      u = g~ / (sqrt(v1' - v2'^2) + eps)
///   AdaDelta: u = g~ * sqrt(v2 + eps) / sqrt(v1' + eps),  v2' = a*v2 + (1-a)*u^2
/// then with momentum (not AdaDelta) v3' = mm*v3 + u, u = v3'; Decay adds wd*w
/// to u; w' = w - lr*u. The TensorFlow RMSProp variant puts eps inside the
/// square root and starts v1 at 1. Clip-norm groups (beyond PopART, whose
/// Adaptive has none) scale the gradients before the update as for SGD and Adam.
class Adaptive : public Optimizer {
public:
  /// Keys: defaultLearningRate, defaultWeightDecay, defaultAlpha,
  /// defaultMomentum, defaultEps, lossScaling. Types UNDEFINED: the weight's.
  explicit Adaptive(const OptimizerParams &params, AdaptiveMode mode = AdaptiveMode::RMSProp,
                    WeightDecayMode wdm = WeightDecayMode::Decay, DataType accumType = DataType::UNDEFINED,
                    DataType accl1Type = DataType::UNDEFINED, DataType accl2Type = DataType::UNDEFINED,
                    DataType accl3Type = DataType::UNDEFINED, bool rmspropTFVariant = false,
                    std::vector<ClipNormSettings> clipNormSettings = {});

  OptimizerType type() const override { return OptimizerType::Adaptive; }
  std::string type_s() const override { return "Adaptive"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<Adaptive>(*this); }
  VarUpdateSpec varUpdate(const TensorId &weight) const override;
  std::map<std::string, const OptimizerValueMap *> valueMaps() const override;
  void validReplacement(const Optimizer &other) const override;

  /// Keys: learningRate, weightDecay, alpha, momentum, eps.
  void insertSpecific(const TensorId &weight, const OptimizerParams &params);
  const OptimizerValueMap &learningRates() const { return lrs_; }
  const OptimizerValueMap &weightDecays() const { return wds_; }
  const OptimizerValueMap &alphas() const { return alphas_; }
  const OptimizerValueMap &momentums() const { return mms_; }
  const OptimizerValueMap &epss() const { return epss_; }
  AdaptiveMode getMode() const { return mode_; }
  WeightDecayMode getWeightDecayMode() const { return wdm_; }
  bool rmspropTFVariant() const { return tfVariant_; }

private:
  OptimizerValueMap lrs_, wds_, alphas_, mms_, epss_;
  AdaptiveMode mode_;
  WeightDecayMode wdm_;
  DataType accumType_, accl1Type_, accl2Type_, accl3Type_;
  bool tfVariant_;
};

} // namespace popart
