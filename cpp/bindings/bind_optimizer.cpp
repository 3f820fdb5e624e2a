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
  py::enum_<WeightDecayMode>(m, "WeightDecayMode")
      .value("Decay", WeightDecayMode::Decay)
      .value("L2Regularization", WeightDecayMode::L2Regularization);
  py::enum_<SGDAccumulatorAndMomentum>(m, "SGDAccumulatorAndMomentum")
      .value("Combined", SGDAccumulatorAndMomentum::Combined)
      .value("Separate", SGDAccumulatorAndMomentum::Separate);
  py::enum_<AdamMode>(m, "AdamMode")
      .value("Adam", AdamMode::Adam)
      .value("AdamNoBias", AdamMode::AdamNoBias)
      .value("AdaMax", AdamMode::AdaMax)
      .value("Lamb", AdamMode::Lamb)
      .value("LambNoBias", AdamMode::LambNoBias);
  py::enum_<AdaptiveMode>(m, "AdaptiveMode")
      .value("AdaGrad", AdaptiveMode::AdaGrad)
      .value("RMSProp", AdaptiveMode::RMSProp)
      .value("CenteredRMSProp", AdaptiveMode::CenteredRMSProp)
      .value("AdaDelta", AdaptiveMode::AdaDelta);
  py::enum_<OptimizerType>(m, "OptimizerType")
      .value("SGD", OptimizerType::SGD)
      .value("Adam", OptimizerType::Adam)
      .value("Adaptive", OptimizerType::Adaptive);

  py::class_<OptimizerValue>(m, "OptimizerValue")
      .def(py::init<>())
      .def(py::init<float>())
      .def(py::init<float, bool>())
      .def(py::init<std::pair<float, bool>>())
      .def("val", &OptimizerValue::val)
      .def("isConst", &OptimizerValue::isConst)
      .def("__eq__", &OptimizerValue::operator==)
      .def("__repr__", [](const OptimizerValue &v) {
        return "OptimizerValue(" + std::to_string(v.val()) + (v.isConst() ? ", const)" : ", non-const)");
      });
  py::class_<OptimizerValueMap>(m, "OptimizerValueMap")
      .def("getDefault", &OptimizerValueMap::getDefault)
      .def("get", &OptimizerValueMap::get)
      .def("hasSpecific", &OptimizerValueMap::hasSpecific)
      .def("getSpecifics", &OptimizerValueMap::getSpecifics);
  py::class_<ClipNormSettings>(m, "ClipNormSettings")
      .def(py::init<std::vector<TensorId>, float>(), py::arg("weightIds"), py::arg("maxNorm"))
      .def_static("clipWeights", &ClipNormSettings::clipWeights)
      .def_static("clipAllWeights", &ClipNormSettings::clipAllWeights)
      .def_readonly("weightIds", &ClipNormSettings::weightIds)
      .def_readonly("maxNorm", &ClipNormSettings::maxNorm)
      .def("getWeightIds", [](const ClipNormSettings &c) { return c.weightIds; })
      .def("getMaxNorm", [](const ClipNormSettings &c) { return c.maxNorm; })
      .def("__repr__", [](const ClipNormSettings &c) {
        return "ClipNormSettings(" + (c.clipAll() ? std::string("all weights") : std::to_string(c.weightIds.size()) +
                                                                                    " weights") +
               ", maxNorm=" + std::to_string(c.maxNorm) + ")";
      });

  py::class_<Optimizer>(m, "Optimizer")
      .def("getLossScalingVal", &Optimizer::getLossScalingVal)
      .def("lossScaling", &Optimizer::lossScaling)
      .def("type", &Optimizer::type)
      .def("type_s", &Optimizer::type_s)
      .def("getClipNormSettings", &Optimizer::getClipNormSettings);
  py::class_<SGD, Optimizer>(m, "SGD")
      .def(py::init([](const py::dict &d, Clips clip, SGDAccumulatorAndMomentum am, DataType accum, DataType accl1) {
             return SGD(toParams(d), std::move(clip), am, accum, accl1);
           }),
           py::arg("params"), py::arg("clip_norm_settings") = Clips{},
           py::arg("accumulatorAndMomentum") = SGDAccumulatorAndMomentum::Combined,
           py::arg("accumType") = DataType::UNDEFINED, py::arg("accl1Type") = DataType::UNDEFINED)
      // SGD(lr), as the user guide writes a learning-rate schedule: the learning rate is
      // non-const so that updateOptimizerFromHost(SGD(nextLr)) can change it.
      .def(py::init([](float lr) { return SGD(OptimizerValue(lr, false)); }), py::arg("learning_rate"))
      .def("insertSpecific", [](SGD &s, const TensorId &w, const py::dict &d) { s.insertSpecific(w, toParams(d)); })
      .def("learningRates", &SGD::learningRates)
      .def("weightDecays", &SGD::weightDecays)
      .def("momentums", &SGD::momentums)
      .def("dampenings", &SGD::dampenings)
      .def("velocityScalings", &SGD::velocityScalings)
      .def("nesterov", &SGD::nesterov)
      .def("getSGDAccumulatorAndMomentum", &SGD::getSGDAccumulatorAndMomentum)
      .def("getAccumType", &SGD::getAccumType)
      .def("getAccl1Type", &SGD::getAccl1Type);
  py::class_<ConstSGD, SGD>(m, "ConstSGD")
      .def(py::init<float, float, float, std::vector<ClipNormSettings>>(), py::arg("learning_rate"),
           py::arg("weight_decay") = 0.0f, py::arg("loss_scaling") = 1.0f,
           py::arg("clip_norm_settings") = std::vector<ClipNormSettings>{});

  py::class_<Adam, Optimizer>(m, "Adam")
      .def(py::init([](const py::dict &d, AdamMode mode, WeightDecayMode wdm, DataType accum, DataType accl1,
                       DataType accl2, Clips clip, bool scaled) {
             return Adam(toParams(d), mode, wdm, accum, accl1, accl2, std::move(clip), scaled);
           }),
           py::arg("values"), py::arg("mode") = AdamMode::Adam, py::arg("weight_decay_mode") = WeightDecayMode::Decay,
           py::arg("accum_type") = DataType::UNDEFINED, py::arg("accl1_type") = DataType::FLOAT,
           py::arg("accl2_type") = DataType::FLOAT, py::arg("clip_norm_settings") = Clips{},
           py::arg("scaled_optimizer_state") = false)
      .def("insertSpecific", [](Adam &a, const TensorId &w, const py::dict &d) { a.insertSpecific(w, toParams(d)); })
      .def("learningRates", &Adam::learningRates)
      .def("weightDecays", &Adam::weightDecays)
      .def("beta1s", &Adam::beta1s)
      .def("beta2s", &Adam::beta2s)
      .def("epss", &Adam::epss)
      .def("maxWeightNorms", &Adam::maxWeightNorms)
      .def("getMode", &Adam::getMode)
      .def("getWeightDecayMode", &Adam::getWeightDecayMode)
      .def("getAccumType", &Adam::getAccumType)
      .def("getAccl1Type", &Adam::getAccl1Type)
      .def("getAccl2Type", &Adam::getAccl2Type)
      .def("scaledOptimizerState", &Adam::scaledOptimizerState);

  py::class_<Adaptive, Optimizer>(m, "Adaptive")
      .def(py::init([](const py::dict &d, AdaptiveMode mode, WeightDecayMode wdm, DataType accum, DataType accl1,
                       DataType accl2, DataType accl3, bool tf, Clips clip) {
             return Adaptive(toParams(d), mode, wdm, accum, accl1, accl2, accl3, tf, std::move(clip));
           }),
           py::arg("values"), py::arg("mode") = AdaptiveMode::RMSProp,
           py::arg("weight_decay_mode") = WeightDecayMode::Decay, py::arg("accum_type") = DataType::UNDEFINED,
           py::arg("accl1_type") = DataType::UNDEFINED, py::arg("accl2_type") = DataType::UNDEFINED,
           py::arg("accl3_type") = DataType::UNDEFINED, py::arg("rmsprop_tf_variant") = false,
           py::arg("clip_norm_settings") = Clips{})
      .def("insertSpecific",
           [](Adaptive &a, const TensorId &w, const py::dict &d) { a.insertSpecific(w, toParams(d)); })
      .def("learningRates", &Adaptive::learningRates)
      .def("weightDecays", &Adaptive::weightDecays)
      .def("alphas", &Adaptive::alphas)
      .def("momentums", &Adaptive::momentums)
      .def("epss", &Adaptive::epss)
      .def("getMode", &Adaptive::getMode)
      .def("getWeightDecayMode", &Adaptive::getWeightDecayMode)
      .def("rmspropTFVariant", &Adaptive::rmspropTFVariant);
}

} // namespace popart::bindings
