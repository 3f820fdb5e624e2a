// Optimizers: OptimizerValue(Map), SGD, ConstSGD, ClipNormSettings and enums.
#include "bindings.hpp"
#include "popart/error.hpp"
#include "popart/optimizer.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

using ParamDict = std::map<std::string, std::pair<float, bool>>;

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
      .def_readonly("maxNorm", &ClipNormSettings::maxNorm);

  py::class_<Optimizer>(m, "Optimizer")
      .def("getLossScalingVal", &Optimizer::getLossScalingVal)
      .def("lossScaling", &Optimizer::lossScaling)
      .def("type", &Optimizer::type)
      .def("type_s", &Optimizer::type_s);
  py::class_<SGD, Optimizer>(m, "SGD")
      .def(py::init([](const py::dict &d, std::vector<ClipNormSettings> clip, SGDAccumulatorAndMomentum am) {
             return SGD(toParams(d), std::move(clip), am);
           }),
           py::arg("params"), py::arg("clip_norm_settings") = std::vector<ClipNormSettings>{},
           py::arg("accumulatorAndMomentum") = SGDAccumulatorAndMomentum::Combined)
      .def("insertSpecific", [](SGD &s, const TensorId &w, const py::dict &d) { s.insertSpecific(w, toParams(d)); })
      .def("learningRates", &SGD::learningRates)
      .def("weightDecays", &SGD::weightDecays)
      .def("momentums", &SGD::momentums)
      .def("dampenings", &SGD::dampenings)
      .def("velocityScalings", &SGD::velocityScalings)
      .def("nesterov", &SGD::nesterov)
      .def("getSGDAccumulatorAndMomentum", &SGD::getSGDAccumulatorAndMomentum);
  py::class_<ConstSGD, SGD>(m, "ConstSGD")
      .def(py::init<float, float, float, std::vector<ClipNormSettings>>(), py::arg("learning_rate"),
           py::arg("weight_decay") = 0.0f, py::arg("loss_scaling") = 1.0f,
           py::arg("clip_norm_settings") = std::vector<ClipNormSettings>{});
}

} // namespace popart::bindings
