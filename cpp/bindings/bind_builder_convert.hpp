// Python <-> C++ conversions shared by the Builder bindings: node attribute
// values, numpy arrays, tensor-id sets and debug names.
#pragma once
#include "bindings.hpp"
#include "popart/builder.hpp"
#include <pybind11/numpy.h>
#include <set>

namespace popart::bindings {

/// "" for None, the string itself, or str(obj) (popart.DebugContext and friends).
std::string debugName(const py::object &obj);
/// A str, or any iterable of str, as a set of tensor ids.
std::set<TensorId> toIdSet(const py::object &obj);
/// Type, shape and C-contiguous bytes of a numpy array (any dtype PopART has).
ConstTensorData tensorDataOf(const py::array &arr);
NodeAttribute toNodeAttribute(const py::handle &value);
py::object fromNodeAttribute(const NodeAttribute &value);
NodeAttributes toNodeAttributes(const py::dict &attrs);

void bindBuilderSettings(py::module_ &m);  // enums, TensorLocation, CommGroup, VariableSettings, ...

} // namespace popart::bindings
