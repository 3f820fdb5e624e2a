// Optimizers: OptimizerValue(Map), SGD, ConstSGD, Adam, Adaptive, ClipNormSettings and enums.
#include "bindings.hpp"
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/error.hpp"
#include "popart/optimizer.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

using ParamDict = OptimizerParams;
using Clips = std::vector<ClipNormSettings>;

ParamDict toParams(const py::dict &d) {
  ParamDict p;
  for (auto [k, v] : d) {
    std::string key = py::str(k);
    if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
      auto t = v.cast<py::sequence>();
      if (t.size() != 2) throw error("optimizer parameter '{}' must be (value, isConst)", key);
      p[key] = {t[0].cast<float>(), t[1].cast<bool>()};
    } else {
      p[key] = {v.cast<float>(), true};
    }
  }
  return p;
}

} // namespace

void bindOptimizer(py::module_ &m) {
  py::enum_<WeightDecayMode>(m, "WeightDecayMode",
                             "How weight decay enters an update: Decay (decoupled, as AdamW) or L2Regularization "
                             "(added to the gradient).")
      .value("Decay", WeightDecayMode::Decay)
      .value("L2Regularization", WeightDecayMode::L2Regularization);
  py::enum_<SGDAccumulatorAndMomentum>(m, "SGDAccumulatorAndMomentum",
                                       "Whether SGD keeps gradient accumulation and momentum in one tensor "
                                       "(Combined) or two (Separate).")
      .value("Combined", SGDAccumulatorAndMomentum::Combined)
      .value("Separate", SGDAccumulatorAndMomentum::Separate);
  py::enum_<AdamMode>(m, "AdamMode", "Variant of the Adam optimizer: Adam, AdamNoBias, AdaMax, Lamb, LambNoBias.")
      .value("Adam", AdamMode::Adam)
      .value("AdamNoBias", AdamMode::AdamNoBias)
      .value("AdaMax", AdamMode::AdaMax)
      .value("Lamb", AdamMode::Lamb)
      .value("LambNoBias", AdamMode::LambNoBias);
  py::enum_<AdaptiveMode>(m, "AdaptiveMode",
                          "Variant of the Adaptive optimizer: AdaGrad, RMSProp, CenteredRMSProp, AdaDelta.")
      .value("AdaGrad", AdaptiveMode::AdaGrad)
      .value("RMSProp", AdaptiveMode::RMSProp)
      .value("CenteredRMSProp", AdaptiveMode::CenteredRMSProp)
      .value("AdaDelta", AdaptiveMode::AdaDelta);
  py::enum_<OptimizerType>(m, "OptimizerType", "Family of an optimizer: SGD, Adam or Adaptive.")
      .value("SGD", OptimizerType::SGD)
      .value("Adam", OptimizerType::Adam)
      .value("Adaptive", OptimizerType::Adaptive);

  py::class_<OptimizerValue>(m, "OptimizerValue",
                             "One optimizer hyper-parameter: a value, and whether it is constant. A constant is "
                             "compiled into the update; a non-constant lives in a tensor that "
                             "updateOptimizerFromHost can change without preparing the session again.")
      .def(py::init<>(), "The constant 0.")
      .def(py::init<float>(), py::arg("value"), "A constant value.")
      .def(py::init<float, bool>(), py::arg("value"), py::arg("isConst"), "A value, constant or not.")
      .def(py::init<std::pair<float, bool>>(), py::arg("valueAndIsConst"), "From a (value, isConst) tuple.")
      .def("val", &OptimizerValue::val, "The value as a float.")
      .def("isConst", &OptimizerValue::isConst, "Whether the value is fixed when the session is prepared.")
      .def("__eq__", &OptimizerValue::operator==)
      .def("__repr__", [](const OptimizerValue &v) {
        return "OptimizerValue(" + std::to_string(v.val()) + (v.isConst() ? ", const)" : ", non-const)");
      });
  py::class_<OptimizerValueMap>(m, "OptimizerValueMap",
                                "One hyper-parameter for every weight: a default plus per-weight values set "
                                "with insertSpecific.")
      .def("getDefault", &OptimizerValueMap::getDefault, "The OptimizerValue of weights without their own.")
      .def("get", &OptimizerValueMap::get, py::arg("weightId"), "The OptimizerValue that applies to `weightId`.")
      .def("hasSpecific", &OptimizerValueMap::hasSpecific, py::arg("weightId"),
           "Whether `weightId` has a value of its own.")
      .def("getSpecifics", &OptimizerValueMap::getSpecifics, "The per-weight values, a dict of weight id to value.");
  py::class_<ClipNormSettings>(m, "ClipNormSettings",
                               "Gradient clipping by global norm: the gradients of a group of weights are scaled "
                               "down together when their joint L2 norm exceeds maxNorm.")
      .def(py::init<std::vector<TensorId>, float>(), py::arg("weightIds"), py::arg("maxNorm"),
           "Clip the gradients of the weights `weightIds` to the joint norm `maxNorm`.")
      .def_static("clipWeights", &ClipNormSettings::clipWeights, py::arg("weightIds"), py::arg("maxNorm"),
                  "Settings clipping the gradients of `weightIds` to the joint norm `maxNorm`.")
      .def_static("clipAllWeights", &ClipNormSettings::clipAllWeights, py::arg("maxNorm"),
                  "Settings clipping the gradients of every weight to the joint norm `maxNorm`.")
      .def_readonly("weightIds", &ClipNormSettings::weightIds, "The clipped weights ([] means all of them).")
      .def_readonly("maxNorm", &ClipNormSettings::maxNorm, "The largest joint gradient norm allowed.")
      .def("getWeightIds", [](const ClipNormSettings &c) { return c.weightIds; },
           "The clipped weights ([] means all of them).")
      .def("getMaxNorm", [](const ClipNormSettings &c) { return c.maxNorm; }, "The largest joint gradient norm allowed.")
      .def("__repr__", [](const ClipNormSettings &c) {
        return "ClipNormSettings(" + (c.clipAll() ? std::string("all weights") : std::to_string(c.weightIds.size()) +
                                                                                    " weights") +
               ", maxNorm=" + std::to_string(c.maxNorm) + ")";
      });

  py::class_<Optimizer>(m, "Optimizer", "Base class of the optimizers a TrainingSession updates weights with.")
      .def("getLossScalingVal", &Optimizer::getLossScalingVal, "The loss-scaling factor as a float.")
      .def("lossScaling", &Optimizer::lossScaling, "The loss-scaling factor as an OptimizerValue.")
      .def("type", &Optimizer::type, "The family of the optimizer (an OptimizerType).")
      .def("type_s", &Optimizer::type_s, "The optimizer's type as text (\"SGD\", \"Adam\", \"Adaptive\").")
      .def("getClipNormSettings", &Optimizer::getClipNormSettings, "The list of ClipNormSettings.");
  py::class_<SGD, Optimizer>(m, "SGD",
                             "Stochastic gradient descent with optional momentum, dampening, velocity scaling, "
                             "weight decay, Nesterov momentum, loss scaling and gradient clipping. Each weight "
                             "gets one fused update per step.")
      .def(py::init([](const py::dict &d, Clips clip, SGDAccumulatorAndMomentum am, DataType accum, DataType accl1) {
             return SGD(toParams(d), std::move(clip), am, accum, accl1);
           }),
           py::arg("params"), py::arg("clip_norm_settings") = Clips{},
           py::arg("accumulatorAndMomentum") = SGDAccumulatorAndMomentum::Combined,
           py::arg("accumType") = DataType::UNDEFINED, py::arg("accl1Type") = DataType::UNDEFINED,
           "`params`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), "
           "defaultMomentum (0), defaultDampening (0), defaultVelocityScaling (1), nesterov (0), lossScaling (1); "
           "unknown names raise. A bare value is constant. `clip_norm_settings`: list of ClipNormSettings. "
           "accumType/accl1Type: types of the accumulator and momentum tensors (UNDEFINED: the weight's).")
      // SGD(lr), as the user guide writes a learning-rate schedule: the learning rate is
      // non-const so that updateOptimizerFromHost(SGD(nextLr)) can change it.
      .def(py::init([](float lr) { return SGD(OptimizerValue(lr, false)); }), py::arg("learning_rate"),
           "Plain SGD with a non-constant learning rate (changeable with updateOptimizerFromHost).")
      .def("insertSpecific", [](SGD &s, const TensorId &w, const py::dict &d) { s.insertSpecific(w, toParams(d)); },
           py::arg("weightId"), py::arg("params"),
           "Give weight `weightId` its own values, e.g. {\"learningRate\": (0.01, False)} (names without the "
           "\"default\" prefix); the others keep the defaults.")
      .def("learningRates", &SGD::learningRates, "The learning rates, an OptimizerValueMap.")
      .def("weightDecays", &SGD::weightDecays, "The weight decays, an OptimizerValueMap.")
      .def("momentums", &SGD::momentums, "The momentums, an OptimizerValueMap.")
      .def("dampenings", &SGD::dampenings, "The dampenings, an OptimizerValueMap.")
      .def("velocityScalings", &SGD::velocityScalings, "The velocity scalings, an OptimizerValueMap.")
      .def("nesterov", &SGD::nesterov, "The Nesterov switches (non-zero: on), an OptimizerValueMap.")
      .def("getSGDAccumulatorAndMomentum", &SGD::getSGDAccumulatorAndMomentum,
           "Whether accumulation and momentum share a tensor (SGDAccumulatorAndMomentum).")
      .def("getAccumType", &SGD::getAccumType, "The DataType of the gradient accumulator (UNDEFINED: the weight's).")
      .def("getAccl1Type", &SGD::getAccl1Type, "The DataType of the momentum tensor (UNDEFINED: the weight's).");
  py::class_<ConstSGD, SGD>(m, "ConstSGD",
                            "SGD whose learning rate, weight decay and loss scaling are constants compiled into "
                            "the session.")
      .def(py::init<float, float, float, std::vector<ClipNormSettings>>(), py::arg("learning_rate"),
           py::arg("weight_decay") = 0.0f, py::arg("loss_scaling") = 1.0f,
           py::arg("clip_norm_settings") = std::vector<ClipNormSettings>{},
           "Constant SGD: learning_rate, weight_decay (default 0), loss_scaling (default 1), "
           "clip_norm_settings (default []).");

  py::class_<Adam, Optimizer>(m, "Adam",
                              "Adam and its variants (AdamNoBias, AdaMax, Lamb, LambNoBias; AdamW with "
                              "WeightDecayMode.Decay), with loss scaling and gradient clipping.")
      .def(py::init([](const py::dict &d, AdamMode mode, WeightDecayMode wdm, DataType accum, DataType accl1,
                       DataType accl2, Clips clip, bool scaled) {
             return Adam(toParams(d), mode, wdm, accum, accl1, accl2, std::move(clip), scaled);
           }),
           py::arg("values"), py::arg("mode") = AdamMode::Adam, py::arg("weight_decay_mode") = WeightDecayMode::Decay,
           py::arg("accum_type") = DataType::UNDEFINED, py::arg("accl1_type") = DataType::FLOAT,
           py::arg("accl2_type") = DataType::FLOAT, py::arg("clip_norm_settings") = Clips{},
           py::arg("scaled_optimizer_state") = false,
           "`values`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), "
           "defaultBeta1 (0.9), defaultBeta2 (0.999), defaultEps (1e-6), defaultMaxWeightNorm (10, Lamb only), "
           "lossScaling (1). `mode`: an AdamMode (default Adam); `weight_decay_mode` (default Decay); types of "
           "the accumulator and the two moment tensors (default: weight's, FLOAT, FLOAT); "
           "`scaled_optimizer_state`: keep the moments multiplied by the loss scaling (default False).")
      .def("insertSpecific", [](Adam &a, const TensorId &w, const py::dict &d) { a.insertSpecific(w, toParams(d)); },
           py::arg("weightId"), py::arg("values"),
           "Give weight `weightId` its own values, e.g. {\"beta1\": (0.8, True)} (names without the "
           "\"default\" prefix).")
      .def("learningRates", &Adam::learningRates, "The learning rates, an OptimizerValueMap.")
      .def("weightDecays", &Adam::weightDecays, "The weight decays, an OptimizerValueMap.")
      .def("beta1s", &Adam::beta1s, "The first-moment decay rates, an OptimizerValueMap.")
      .def("beta2s", &Adam::beta2s, "The second-moment decay rates, an OptimizerValueMap.")
      .def("epss", &Adam::epss, "The epsilons added to the denominator, an OptimizerValueMap.")
      .def("maxWeightNorms", &Adam::maxWeightNorms, "Lamb's largest weight norms, an OptimizerValueMap.")
      .def("getMode", &Adam::getMode, "The variant of Adam this optimizer runs (an AdamMode).")
      .def("getWeightDecayMode", &Adam::getWeightDecayMode, "How weight decay is applied (a WeightDecayMode).")
      .def("getAccumType", &Adam::getAccumType, "The DataType of the gradient accumulator.")
      .def("getAccl1Type", &Adam::getAccl1Type, "The DataType of the first-moment tensor.")
      .def("getAccl2Type", &Adam::getAccl2Type, "The DataType of the second-moment tensor.")
      .def("scaledOptimizerState", &Adam::scaledOptimizerState,
           "Whether the moments are kept multiplied by the loss scaling.");

  py::class_<Adaptive, Optimizer>(m, "Adaptive",
                                  "Adaptive-learning-rate optimizers: AdaGrad, RMSProp, CenteredRMSProp and "
                                  "AdaDelta, with weight decay and loss scaling.")
      .def(py::init([](const py::dict &d, AdaptiveMode mode, WeightDecayMode wdm, DataType accum, DataType accl1,
                       DataType accl2, DataType accl3, bool tf, Clips clip) {
             return Adaptive(toParams(d), mode, wdm, accum, accl1, accl2, accl3, tf, std::move(clip));
           }),
           py::arg("values"), py::arg("mode") = AdaptiveMode::RMSProp,
           py::arg("weight_decay_mode") = WeightDecayMode::Decay, py::arg("accum_type") = DataType::UNDEFINED,
           py::arg("accl1_type") = DataType::UNDEFINED, py::arg("accl2_type") = DataType::UNDEFINED,
           py::arg("accl3_type") = DataType::UNDEFINED, py::arg("rmsprop_tf_variant") = false,
           py::arg("clip_norm_settings") = Clips{},
           "`values`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), "
           "defaultAlpha (0.99), defaultMomentum (0), defaultEps (1e-6), lossScaling (1). `mode`: an AdaptiveMode "
           "(default RMSProp); `weight_decay_mode` (default Decay); types of the state tensors (UNDEFINED: the "
           "weight's); `rmsprop_tf_variant`: TensorFlow's RMSProp formula (default False); `clip_norm_settings`: "
           "list of ClipNormSettings (default []).")
      .def("insertSpecific",
           [](Adaptive &a, const TensorId &w, const py::dict &d) { a.insertSpecific(w, toParams(d)); },
           py::arg("weightId"), py::arg("values"),
           "Give weight `weightId` its own values (names without the \"default\" prefix).")
      .def("learningRates", &Adaptive::learningRates, "The learning rates, an OptimizerValueMap.")
      .def("weightDecays", &Adaptive::weightDecays, "The weight decays, an OptimizerValueMap.")
      .def("alphas", &Adaptive::alphas, "The decay rates of the squared-gradient averages, an OptimizerValueMap.")
      .def("momentums", &Adaptive::momentums, "The momentums, an OptimizerValueMap.")
      .def("epss", &Adaptive::epss, "The epsilons added to the denominator, an OptimizerValueMap.")
      .def("getMode", &Adaptive::getMode, "The variant this optimizer runs (an AdaptiveMode).")
      .def("getWeightDecayMode", &Adaptive::getWeightDecayMode, "How weight decay is applied (a WeightDecayMode).")
      .def("rmspropTFVariant", &Adaptive::rmspropTFVariant, "Whether TensorFlow's RMSProp formula is used.");
}

} // namespace popart::bindings
