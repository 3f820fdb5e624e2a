// Python <-> C++ conversions for the Builder bindings (see bind_builder_convert.hpp).
#include "bind_builder_convert.hpp"
#include "numpy_util.hpp"
#include "popart/error.hpp"
#include <pybind11/stl.h>

namespace popart::bindings {

std::string debugName(const py::object &obj) {
  if (obj.is_none()) return "";
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  return py::str(obj).cast<std::string>();
}

std::set<TensorId> toIdSet(const py::object &obj) {
  if (py::isinstance<py::str>(obj)) return {obj.cast<std::string>()};
  std::set<TensorId> ids;
  for (auto item : obj) ids.insert(item.cast<std::string>());
  return ids;
}

namespace {
// Builder constants may also be complex (StepIO buffers may not).
DataType constantTypeOf(const py::dtype &dt) {
  if (dt.kind() == 'c' && dt.itemsize() == 8) return DataType::COMPLEX64;
  if (dt.kind() == 'c' && dt.itemsize() == 16) return DataType::COMPLEX128;
  return dataTypeOf(dt);
}
} // namespace

ConstTensorData tensorDataOf(const py::array &arr) {
  auto type = constantTypeOf(arr.dtype());
  auto c = py::array::ensure(nativeOrder(arr), py::array::c_style);
  Shape shape(c.shape(), c.shape() + c.ndim());
  ConstTensorData d{TensorInfo(type, shape), {}};
  d.bytes.assign(static_cast<const char *>(c.data()), static_cast<size_t>(c.nbytes()));
  return d;
}

namespace {

bool isInt(const py::handle &h) {
  return py::isinstance<py::bool_>(h) || py::isinstance<py::int_>(h) ||
         py::isinstance(h, py::module_::import("numpy").attr("integer"));
}
bool isFloat(const py::handle &h) {
  return py::isinstance<py::float_>(h) ||
         py::isinstance(h, py::module_::import("numpy").attr("floating"));
}
bool isBuilder(const py::handle &h) { return py::isinstance<Builder>(h); }

NodeAttribute listAttribute(const py::sequence &seq) {
  bool ints = true, numbers = true, strings = true, builders = true;
  for (auto item : seq) {
    ints &= isInt(item);
    numbers &= isInt(item) || isFloat(item);
    strings &= py::isinstance<py::str>(item);
    builders &= isBuilder(item);
  }
  if (ints) return seq.cast<std::vector<int64_t>>();  // also the empty list
  if (numbers) return seq.cast<std::vector<float>>();
  if (strings) return seq.cast<std::vector<std::string>>();
  if (builders) {
    std::vector<SubgraphRef> refs;
    for (auto item : seq) refs.push_back({item.cast<const Builder *>()});
    return refs;
  }
  throw error("attribute list {} mixes element types", py::repr(seq).cast<std::string>());
}

} // namespace

NodeAttribute toNodeAttribute(const py::handle &value) {
  if (isInt(value)) return value.cast<int64_t>();
  if (isFloat(value)) return value.cast<float>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (isBuilder(value)) return SubgraphRef{value.cast<const Builder *>()};
  if (py::isinstance<py::array>(value)) return tensorDataOf(value.cast<py::array>());
  if (py::hasattr(value, "_impl") && isBuilder(value.attr("_impl"))) {
    return SubgraphRef{value.attr("_impl").cast<const Builder *>()};
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    py::list items;
    for (auto item : value) {
      items.append(py::hasattr(item, "_impl") ? item.attr("_impl") : py::reinterpret_borrow<py::object>(item));
    }
    return listAttribute(items);
  }
  throw error("unsupported attribute value {} of Python type {}", py::repr(value).cast<std::string>(),
              py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

py::object fromNodeAttribute(const NodeAttribute &value) {
  return std::visit([](const auto &v) -> py::object {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, ConstTensorData>) {
      return py::bytes(v.bytes);
    } else if constexpr (std::is_same_v<T, SubgraphRef> || std::is_same_v<T, std::vector<SubgraphRef>>) {
      throw error("graph attributes cannot be read back from the builder");
    } else {
      return py::cast(v);
    }
  }, value);
}

NodeAttributes toNodeAttributes(const py::dict &attrs) {
  NodeAttributes out;
  for (auto [k, v] : attrs) {
    auto name = k.cast<std::string>();
    try {
      out[name] = toNodeAttribute(v);
    } catch (const error &e) {
      throw error("attribute '{}': {}", name, e.what());
    }
  }
  return out;
}

} // namespace popart::bindings
