// Type dispatch for kernels: call f(T{}) with the C++ type of a DataType.
// FLOAT16 dispatches to float16_t (kernels usually compute in float).
#pragma once
#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/tensorinfo.hpp"
#include <cstdint>

namespace popart::cpu {

template <class F> decltype(auto) dispatchFloat(DataType t, F &&f) {
  switch (t) {
  case DataType::FLOAT: return f(float{});
  case DataType::DOUBLE: return f(double{});
  case DataType::FLOAT16: return f(float16_t{});
  default: throw error("type {} is not supported here (expected FLOAT, FLOAT16 or DOUBLE)", toString(t));
  }
}

template <class F> decltype(auto) dispatchNumeric(DataType t, F &&f) {
  switch (t) {
  case DataType::FLOAT: return f(float{});
  case DataType::DOUBLE: return f(double{});
  case DataType::FLOAT16: return f(float16_t{});
  case DataType::INT8: return f(int8_t{});
  case DataType::INT16: return f(int16_t{});
  case DataType::INT32: return f(int32_t{});
  case DataType::INT64: return f(int64_t{});
  case DataType::UINT8: return f(uint8_t{});
  case DataType::UINT16: return f(uint16_t{});
  case DataType::UINT32: return f(uint32_t{});
  case DataType::UINT64: return f(uint64_t{});
  default: throw error("type {} is not supported here (expected a numeric type)", toString(t));
  }
}

template <class F> decltype(auto) dispatchAll(DataType t, F &&f) {
  if (t == DataType::BOOL) return f(bool{});
  return dispatchNumeric(t, std::forward<F>(f));
}

/// The type arithmetic is done in: float for float16_t, T otherwise.
template <class T> struct ComputeType { using type = T; };
template <> struct ComputeType<float16_t> { using type = float; };
template <class T> using compute_t = typename ComputeType<T>::type;

} // namespace popart::cpu
