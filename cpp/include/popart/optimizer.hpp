// Optimizers. An optimizer turns into one fused var-update op per weight:
// its state lives in Variables with PopART's reserved names (Accl___w, ...),
// its hyper-parameters in a small per-weight tensor that
// Session::updateOptimizerFromHost rewrites without recompiling.
#pragma once
#include "popart/datatype.hpp"
#include "popart/names.hpp"
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace popart {

enum class OptimizerType { SGD = 0, Adam, Adaptive, NTYPES };
enum class OptimizerReductionType { None = 0, GradReduce, AcclReduce, AccumReduce };
enum class WeightDecayMode { Decay = 0, L2Regularization };
enum class SGDAccumulatorAndMomentum { Combined = 0, Separate };

/// A hyper-parameter value and whether it is fixed at compile time.
class OptimizerValue {
public:
  OptimizerValue() = default;
  OptimizerValue(float v) : val_(v), isConst_(true) {}
  OptimizerValue(float v, bool isConst) : val_(v), isConst_(isConst) {}
  OptimizerValue(std::pair<float, bool> p) : val_(p.first), isConst_(p.second) {}
  float val() const { return val_; }
  bool isConst() const { return isConst_; }
  bool operator==(const OptimizerValue &o) const { return val_ == o.val_ && isConst_ == o.isConst_; }
  /// Throws popart::error when `other` cannot replace this value at run time.
  void validReplacement(const OptimizerValue &other, const std::string &what) const;

private:
  float val_ = 0.0f;
  bool isConst_ = true;
};

/// A default value plus weight-specific overrides.
class OptimizerValueMap {
public:
  explicit OptimizerValueMap(OptimizerValue defaultValue = {}) : default_(defaultValue) {}
  const OptimizerValue &getDefault() const { return default_; }
  const OptimizerValue &get(const TensorId &weight) const;
  void insertSpecific(const TensorId &weight, OptimizerValue v) { specific_[weight] = v; }
  bool hasSpecific(const TensorId &weight) const { return specific_.count(weight) != 0; }
  const std::map<TensorId, OptimizerValue> &getSpecifics() const { return specific_; }
  bool allConstAndEqual() const;
  void validReplacement(const OptimizerValueMap &other, const std::string &what) const;

private:
  OptimizerValue default_;
  std::map<TensorId, OptimizerValue> specific_;
};

/// Gradient clipping by global L2 norm over a group of weights (empty: all weights).
struct ClipNormSettings {
  ClipNormSettings(std::vector<TensorId> weightIds_, float maxNorm_)
      : weightIds(std::move(weightIds_)), maxNorm(maxNorm_) {}
  static ClipNormSettings clipWeights(const std::vector<TensorId> &ids, float maxNorm) { return {ids, maxNorm}; }
  static ClipNormSettings clipAllWeights(float maxNorm) { return {{}, maxNorm}; }
  std::vector<TensorId> weightIds;
  float maxNorm;
  bool clipAll() const { return weightIds.empty(); }
};

/// One optimizer state Variable of a weight (Accl___w, Step___w, ...).
struct OptimizerStateSpec {
  TensorId name;                        // reserved prefix + weight id
  float init = 0.0f;                    // initial value of every element
  DataType type = DataType::UNDEFINED;  // UNDEFINED: the weight's type
  bool scalar = false;                  // one value per weight (a step counter), not one per element
};

/// What the IR needs to lower one weight's update.
struct VarUpdateSpec {
  std::string algorithm;                     // kernel selector: "SGD", "Adam", "Adaptive"
  std::map<std::string, int64_t> modes;      // nesterov, adam mode, ...
  std::vector<std::string> hyperNames;       // order of the per-weight hyper-parameter vector
  std::vector<float> hyperValues;
  std::vector<OptimizerStateSpec> state;     // kernel inputs 3, 4, ... in this order
  DataType accumType = DataType::UNDEFINED;  // gradient accumulator Accum___w; UNDEFINED: the weight's type
};

/// Optimizer parameters as PopART's dictionaries give them: key -> (value, isConst).
using OptimizerParams = std::map<std::string, std::pair<float, bool>>;

class Optimizer {
public:
  Optimizer(OptimizerValue lossScaling, std::vector<ClipNormSettings> clipNorms);
  virtual ~Optimizer() = default;
  virtual OptimizerType type() const = 0;
  virtual std::string type_s() const = 0;
  virtual std::unique_ptr<Optimizer> clone() const = 0;
  /// Throws popart::error naming the first difference that needs a recompile.
  virtual void validReplacement(const Optimizer &other) const;
  virtual VarUpdateSpec varUpdate(const TensorId &weight) const = 0;

  const OptimizerValue &lossScaling() const { return lossScaling_; }
  float getLossScalingVal() const { return lossScaling_.val(); }
  const std::vector<ClipNormSettings> &getClipNormSettings() const { return clipNorms_; }
  /// Throws popart::error unless `other` has the same clip-norm groups and norms.
  void validClipNormReplacement(const Optimizer &other) const;
  bool hasSpecific(const TensorId &weight) const;
  /// Every OptimizerValueMap of the optimizer by name (for validation and Python).
  virtual std::map<std::string, const OptimizerValueMap *> valueMaps() const = 0;

private:
  OptimizerValue lossScaling_;
  std::vector<ClipNormSettings> clipNorms_;
};

/// SGD with momentum, dampening, velocity scaling, weight decay and Nesterov
/// momentum (formulas of the PopART documentation, section SGD).
class SGD : public Optimizer {
public:
  /// Keys: defaultLearningRate, defaultWeightDecay, defaultMomentum,
  /// defaultDampening, defaultVelocityScaling, lossScaling, nesterov,
  /// each mapped to (value, isConst).
  /// accumType/accl1Type (UNDEFINED: the weight's type) set the gradient
  /// accumulator and velocity types, as PopART allows with Separate.
  explicit SGD(const OptimizerParams &params, std::vector<ClipNormSettings> clipNorms = {},
               SGDAccumulatorAndMomentum accMom = SGDAccumulatorAndMomentum::Combined,
               DataType accumType = DataType::UNDEFINED, DataType accl1Type = DataType::UNDEFINED);
  SGD(OptimizerValue lr = {0.1f, true}, OptimizerValue wd = {0, true}, OptimizerValue mm = {0, true},
      OptimizerValue dp = {0, true}, OptimizerValue vs = {1, true}, OptimizerValue ls = {1, true},
      std::vector<ClipNormSettings> clipNorms = {},
      SGDAccumulatorAndMomentum accMom = SGDAccumulatorAndMomentum::Combined,
      DataType accumType = DataType::UNDEFINED, DataType accl1Type = DataType::UNDEFINED);
  OptimizerType type() const override { return OptimizerType::SGD; }
  std::string type_s() const override { return "SGD"; }
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<SGD>(*this); }
  VarUpdateSpec varUpdate(const TensorId &weight) const override;
  std::map<std::string, const OptimizerValueMap *> valueMaps() const override;
  void validReplacement(const Optimizer &other) const override;

  void insertSpecific(const TensorId &weight, const OptimizerParams &params);
  const OptimizerValueMap &learningRates() const { return lrs_; }
  const OptimizerValueMap &weightDecays() const { return wds_; }
  const OptimizerValueMap &momentums() const { return mms_; }
  const OptimizerValueMap &dampenings() const { return dps_; }
  const OptimizerValueMap &velocityScalings() const { return vss_; }
  const OptimizerValueMap &nesterov() const { return nesterov_; }
  SGDAccumulatorAndMomentum getSGDAccumulatorAndMomentum() const { return accMom_; }
  DataType getAccumType() const { return accumType_; }
  DataType getAccl1Type() const { return accl1Type_; }

private:
  OptimizerValueMap lrs_, wds_, mms_, dps_, vss_, nesterov_;
  SGDAccumulatorAndMomentum accMom_;
  DataType accumType_, accl1Type_;
};

/// SGD whose learning rate, weight decay and loss scaling are constants.
class ConstSGD : public SGD {
public:
  explicit ConstSGD(float lr, float wd = 0, float ls = 1, std::vector<ClipNormSettings> clipNorms = {})
      : SGD({lr, true}, {wd, true}, {0, true}, {0, true}, {1, true}, {ls, true}, std::move(clipNorms)) {}
  std::unique_ptr<Optimizer> clone() const override { return std::make_unique<ConstSGD>(*this); }
};

/// Optimizer state Variables (Accl___, Accl1___, Accl2___, Accl3___, Step___):
/// modelToHost saves them; a model carrying them resumes training from them.
bool isOptimizerStateId(const TensorId &id);

} // namespace popart
