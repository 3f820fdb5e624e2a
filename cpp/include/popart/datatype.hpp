// Element types. Values are PopART's; conversions to ONNX's TensorProto enum
// and to PopART's type strings ("FLOAT16", "float16") live beside them.
#pragma once
#include <cstdint>
#include "popart/half.hpp"
#include <string>

namespace popart {

enum class DataType {
  UINT8 = 0, INT8, UINT16, INT16, INT32, INT64, UINT32, UINT64, BOOL, FLOAT, FLOAT16,
  BFLOAT16, FLOAT8_143, FLOAT8_152, DOUBLE, COMPLEX64, COMPLEX128, STRING, UNDEFINED
};

std::string toString(DataType t);            // "FLOAT16"
std::string toLowerString(DataType t);       // "float16"
/// Accepts PopART names ("FLOAT", "float16") and numpy-like names ("float32",
/// "int64", "bool"); throws popart::error naming the string otherwise.
DataType dataTypeFromString(const std::string &name);
/// Bytes per element; 0 for STRING and UNDEFINED.
int64_t dataTypeSize(DataType t);
bool isFloatingPoint(DataType t);  // FLOAT, FLOAT16, BFLOAT16, DOUBLE, FLOAT8_*
bool isIntegral(DataType t);       // signed and unsigned integers, not BOOL

/// ONNX TensorProto.DataType numbers. Throws for types ONNX lacks (FLOAT8_143).
int32_t onnxDataType(DataType t);
/// Throws popart::error for ONNX types PopART cannot represent.
DataType fromOnnxDataType(int32_t onnxType);

/// The DataType of a C++ element type (float -> FLOAT, float16_t -> FLOAT16, ...).
template <class T> DataType getDataType();
template <> inline DataType getDataType<float>() { return DataType::FLOAT; }
template <> inline DataType getDataType<double>() { return DataType::DOUBLE; }
template <> inline DataType getDataType<float16_t>() { return DataType::FLOAT16; }
template <> inline DataType getDataType<int8_t>() { return DataType::INT8; }
template <> inline DataType getDataType<int16_t>() { return DataType::INT16; }
template <> inline DataType getDataType<int32_t>() { return DataType::INT32; }
template <> inline DataType getDataType<int64_t>() { return DataType::INT64; }
template <> inline DataType getDataType<uint8_t>() { return DataType::UINT8; }
template <> inline DataType getDataType<uint16_t>() { return DataType::UINT16; }
template <> inline DataType getDataType<uint32_t>() { return DataType::UINT32; }
template <> inline DataType getDataType<uint64_t>() { return DataType::UINT64; }
template <> inline DataType getDataType<bool>() { return DataType::BOOL; }

} // namespace popart
