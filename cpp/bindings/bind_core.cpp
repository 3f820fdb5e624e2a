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
  py::enum_<DataType> e(m, "DataType", "Element type of a tensor (FLOAT, FLOAT16, INT32, ...), with PopART's names.");
  for (int i = 0; i <= static_cast<int>(lastDataType); ++i) {
    auto t = static_cast<DataType>(i);
    e.value(toString(t).c_str(), t);
  }
}

void bindTensorInfo(py::module_ &m) {
  py::class_<TensorInfo>(m, "_TensorInfoCore", "A tensor's element type and shape (the C++ part of popart.TensorInfo).")
      .def(py::init<>(), "An unset TensorInfo (no type, no shape).")
      .def(py::init<DataType, const Shape &>(), py::arg("dataType"), py::arg("shape"),
           "A TensorInfo of the DataType `dataType` and the list of ints `shape`.")
      .def(py::init<const std::string &, const Shape &>(), py::arg("dataType"), py::arg("shape"),
           "A TensorInfo of the type named `dataType` (\"FLOAT\", \"INT32\", ...) and the list of ints `shape`.")
      .def(py::init<const std::string &, const std::string &>(), py::arg("dataType"), py::arg("shape"),
           "A TensorInfo from a type name and a shape written as text, e.g. (\"FLOAT\", \"[2 3]\").")
      .def("set", &TensorInfo::set, py::arg("dataType"), py::arg("shape"),
           "Replace the type and shape (a DataType and a list of ints).")
      .def("dataType", &TensorInfo::dataType, "The element type as a DataType.")
      .def("data_type", &TensorInfo::data_type, "The element type's name in capitals, e.g. \"FLOAT16\".")
      .def("data_type_lcase", &TensorInfo::data_type_lcase, "The element type's name in lower case, e.g. \"float16\".")
      .def("shape", &TensorInfo::shape, "The dimensions, a list of ints ([] for a scalar).")
      .def("rank", &TensorInfo::rank, "The number of dimensions.")
      .def("nelms", &TensorInfo::nelms, "The number of elements (1 for a scalar).")
      .def("nbytes", &TensorInfo::nbytes, "The size of the tensor's data in bytes.")
      .def("dim", &TensorInfo::dim, py::arg("i"), "The size of dimension `i`.")
      .def("isSet", &TensorInfo::isSet, "Whether a type has been set.")
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
  m.def("versionString", &versionString, "The version of popart-cpu as text, e.g. \"0.1.0\".");
  m.def("versionNumber", [] {
    auto v = versionNumber();
    return py::make_tuple(v.major, v.minor, v.point);
  }, "The version as a tuple of ints (major, minor, point).");
  m.def("packageHash", &packageHash, "An identifier of the source the library was built from.");
  for (const auto &[fn, prefix] : reservedPrefixFunctions()) {
    const std::string value = prefix;
    const std::string doc = "The reserved tensor-id prefix \"" + value + "\": tensors the IR creates (gradients, "
                            "optimizer state, ...) are named with it followed by the id they belong to.";
    m.def(fn.c_str(), [value] { return value; }, doc.c_str());
  }
  m.def("reservedOptimizerPrefixes", &reservedOptimizerPrefixes,
        "The prefixes of every optimizer state and hyper-parameter tensor, as a list.");
  m.def("reservedOptimizerStatePrefixes", &reservedOptimizerStatePrefixes,
        "The prefixes of the optimizer state tensors (accumulators, moments, step counters), as a list.");
  m.def("reservedAccumulatorPrefixes", &reservedAccumulatorPrefixes,
        "The prefixes of the gradient and optimizer accumulator tensors, as a list.");
  m.def("reservedPrefixes", &reservedPrefixes, "Every reserved tensor-id prefix, as a list.");
}

} // namespace popart::bindings
