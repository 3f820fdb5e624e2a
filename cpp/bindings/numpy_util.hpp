// numpy dtype <-> popart::DataType for the bindings.
#pragma once
#include "popart/error.hpp"
#include "popart/tensorinfo.hpp"
#include <pybind11/numpy.h>
#include <utility>
#include <vector>

namespace popart::bindings {
namespace py = pybind11;

/// The ml_dtypes dtypes (as onnx.numpy_helper uses them) of BFLOAT16 and the
/// storage types: numpy arrays of one element per byte (two for bfloat16).
inline const std::vector<std::pair<DataType, const char *>> &mlDtypes() {
  static const std::vector<std::pair<DataType, const char *>> names{
      {DataType::BFLOAT16, "bfloat16"},         {DataType::FLOAT8E4M3FN, "float8_e4m3fn"},
      {DataType::FLOAT8E4M3FNUZ, "float8_e4m3fnuz"}, {DataType::FLOAT8E5M2, "float8_e5m2"},
      {DataType::FLOAT8E5M2FNUZ, "float8_e5m2fnuz"}, {DataType::FLOAT4E2M1, "float4_e2m1fn"},
      {DataType::INT4, "int4"},                 {DataType::UINT4, "uint4"},
      {DataType::INT2, "int2"},                 {DataType::UINT2, "uint2"},
      {DataType::FLOAT8E8M0, "float8_e8m0fnu"}};
  return names;
}

inline DataType dataTypeOf(const py::dtype &dt) {
  const std::string name = py::str(dt);
  for (const auto &[t, n] : mlDtypes())  // by name: ml_dtypes' kinds vary ('V', and 'f' for float8_e5m2)
    if (name == n) return t;
  char kind = dt.kind();
  auto size = dt.itemsize();
  if (kind == 'f' && size == 4) return DataType::FLOAT;
  if (kind == 'f' && size == 2) return DataType::FLOAT16;
  if (kind == 'f' && size == 8) return DataType::DOUBLE;
  if (kind == 'b') return DataType::BOOL;
  if (kind == 'i' && size == 1) return DataType::INT8;
  if (kind == 'i' && size == 2) return DataType::INT16;
  if (kind == 'i' && size == 4) return DataType::INT32;
  if (kind == 'i' && size == 8) return DataType::INT64;
  if (kind == 'u' && size == 1) return DataType::UINT8;
  if (kind == 'u' && size == 2) return DataType::UINT16;
  if (kind == 'u' && size == 4) return DataType::UINT32;
  if (kind == 'u' && size == 8) return DataType::UINT64;
  throw error("numpy dtype '{}' has no popart equivalent", name);
}

inline py::dtype numpyDtypeOf(DataType t) {
  switch (t) {
  case DataType::FLOAT: return py::dtype("float32");
  case DataType::FLOAT16: return py::dtype("float16");
  case DataType::DOUBLE: return py::dtype("float64");
  case DataType::BOOL: return py::dtype("bool");
  case DataType::INT8: return py::dtype("int8");
  case DataType::INT16: return py::dtype("int16");
  case DataType::INT32: return py::dtype("int32");
  case DataType::INT64: return py::dtype("int64");
  case DataType::UINT8: return py::dtype("uint8");
  case DataType::UINT16: return py::dtype("uint16");
  case DataType::UINT32: return py::dtype("uint32");
  case DataType::UINT64: return py::dtype("uint64");
  default: break;
  }
  for (const auto &[type, name] : mlDtypes()) {
    if (type != t) continue;
    try {
      return py::dtype::from_args(py::module_::import("ml_dtypes").attr(name));
    } catch (const py::error_already_set &) {
      throw error("popart type {} needs the ml_dtypes package (numpy dtype ml_dtypes.{})", toString(t), name);
    }
  }
  throw error("popart type {} has no numpy equivalent", toString(t));
}

/// A C-contiguous array whose memory popart may read or write.
inline py::array contiguous(const py::array &a, const std::string &what) {
  if (!(a.flags() & py::array::c_style))
    throw error("{} must be a C-contiguous numpy array (use numpy.ascontiguousarray)", what);
  return a;
}

/// True for arrays in the non-native byte order (e.g. dtype('>f4') on x86).
inline bool isByteSwapped(const py::array &a) { return !a.dtype().attr("isnative").cast<bool>(); }

/// `a` itself, or a copy converted to native byte order (values preserved).
inline py::array nativeOrder(const py::array &a) {
  if (!isByteSwapped(a)) return a;
  return py::array(a.attr("astype")(a.dtype().attr("newbyteorder")("=")));
}

/// Arrays popart writes into must be in native byte order: they cannot be converted in place.
inline void requireNativeOrder(const py::array &a, const std::string &what) {
  if (isByteSwapped(a))
    throw error("{} has non-native byte order (dtype {}); pass an array of native byte order, e.g. "
                "a.astype(a.dtype.newbyteorder('='))", what, std::string(py::str(a.dtype())));
}

} // namespace popart::bindings
