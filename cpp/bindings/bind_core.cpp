// DataType, TensorInfo, logging controls, version and reserved-name helpers.
#include "bindings.hpp"
#include "popart/logging.hpp"
#include "popart/names.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensorinfo.hpp"
#include "popart/version.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {
namespace {

void bindDataType(py::module_ &m) {
  py::enum_<DataType> e(m, "DataType");
  for (int i = 0; i <= static_cast<int>(lastDataType); ++i) {
    auto t = static_cast<DataType>(i);
    e.value(toString(t).c_str(), t);
  }
}

void bindTensorInfo(py::module_ &m) {
  py::class_<TensorInfo>(m, "_TensorInfoCore")
      .def(py::init<>())
      .def(py::init<DataType, const Shape &>(), py::arg("dataType"), py::arg("shape"))
      .def(py::init<const std::string &, const Shape &>(), py::arg("dataType"), py::arg("shape"))
      .def(py::init<const std::string &, const std::string &>(), py::arg("dataType"), py::arg("shape"))
      .def("set", &TensorInfo::set)
      .def("dataType", &TensorInfo::dataType)
      .def("data_type", &TensorInfo::data_type)
      .def("data_type_lcase", &TensorInfo::data_type_lcase)
      .def("shape", &TensorInfo::shape)
      .def("rank", &TensorInfo::rank)
      .def("nelms", &TensorInfo::nelms)
      .def("nbytes", &TensorInfo::nbytes)
      .def("dim", &TensorInfo::dim)
      .def("isSet", &TensorInfo::isSet)
      .def("__eq__", &TensorInfo::operator==)
      .def("__ne__", &TensorInfo::operator!=)
      .def("__str__", &TensorInfo::toString)
      .def("__repr__", [](const TensorInfo &t) { return "TensorInfo(" + t.toString() + ")"; });
}

void bindLogging(py::module_ &m) {
  m.def("_setLogLevel", [](const std::string &module, const std::string &level) {
    logging::setLogLevel(logging::moduleFromString(module), logging::levelFromString(level));
  });
  m.def("_getLogLevel", [](const std::string &module) {
    return logging::levelToString(logging::getLogLevel(logging::moduleFromString(module)));
  });
  m.def("_log", [](const std::string &module, const std::string &level, const std::string &msg) {
    auto mod = logging::moduleFromString(module);
    auto lev = logging::levelFromString(level);
    if (logging::shouldLog(mod, lev)) logging::log(mod, lev, msg);
  });
}

} // namespace

void bindCore(py::module_ &m) {
  // One row per registered (domain, type, version): input-0 types and whether
  // the op class defines a gradient. tools/gen_op_docs.py renders it.
  m.def("_operatorTable", [](bool includeInternal) {
    py::list rows;
    for (const auto &[id, def] : OpManager::getSupportedOperationsDefinition(includeInternal)) {
      std::vector<std::string> types;
      bool floats = def.inputs.empty() || def.inputs[0].supportedTensors.empty();
      if (!def.inputs.empty())
        for (DataType t : def.inputs[0].supportedTensors) {
          types.push_back(toString(t));
          floats = floats || isFloatingPoint(t);
        }
      // Integer-only ops stop autodiff whatever their class says.
      rows.append(py::make_tuple(id.domain, id.type, id.version, types, def.hasGradient && floats));
    }
    return rows;
  }, py::arg("includeInternal") = false);
  bindDataType(m);
  bindTensorInfo(m);
  bindLogging(m);
  m.def("versionString", &versionString);
  m.def("versionNumber", [] {
    auto v = versionNumber();
    return py::make_tuple(v.major, v.minor, v.point);
  });
  m.def("packageHash", &packageHash);
  for (const auto &[fn, prefix] : reservedPrefixFunctions()) {
    const std::string value = prefix;
    m.def(fn.c_str(), [value] { return value; });
  }
  m.def("reservedOptimizerPrefixes", &reservedOptimizerPrefixes);
  m.def("reservedOptimizerStatePrefixes", &reservedOptimizerStatePrefixes);
  m.def("reservedAccumulatorPrefixes", &reservedAccumulatorPrefixes);
  m.def("reservedPrefixes", &reservedPrefixes);
}

} // namespace popart::bindings
