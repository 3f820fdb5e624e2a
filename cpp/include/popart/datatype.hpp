// Element types. Values are PopART's; conversions to ONNX's TensorProto enum
// and to PopART's type strings ("FLOAT16", "float16") live beside them.
#pragma once
#include <cstdint>
#include "popart/half.hpp"
#include <string>

namespace popart {

/// PopART's types, then ONNX's 8/4/2-bit types (storage types: one element per
/// byte in memory, 4- and 2-bit values in the low bits; only Cast, CastLike and
/// the data-movement ops accept them; ONNX files pack 4- and 2-bit values).
enum class DataType {
  UINT8 = 0, INT8, UINT16, INT16, INT32, INT64, UINT32, UINT64, BOOL, FLOAT, FLOAT16,
  BFLOAT16, FLOAT8_143, FLOAT8_152, DOUBLE, COMPLEX64, COMPLEX128, STRING, UNDEFINED,
  FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, UINT4, INT4, FLOAT4E2M1, UINT2, INT2, FLOAT8E8M0
};
constexpr DataType lastDataType = DataType::FLOAT8E8M0;

std::string toString(DataType t);            // "FLOAT16"
std::string toLowerString(DataType t);       // "float16"
/// Accepts PopART names ("FLOAT", "float16") and numpy-like names ("float32",
/// "int64", "bool"); throws popart::error naming the string otherwise.
DataType dataTypeFromString(const std::string &name);
/// Bytes per element in memory; 0 for STRING and UNDEFINED.
int64_t dataTypeSize(DataType t);
/// Bits per element in ONNX's packed encoding: 4 for INT4, UINT4, FLOAT4E2M1,
/// 2 for INT2, UINT2, 8 * dataTypeSize otherwise.
int64_t dataTypeBits(DataType t);
/// FLOAT, FLOAT16, BFLOAT16, DOUBLE, FLOAT8_*: the types weights and gradients
/// may have. Not the ONNX storage types (FLOAT8E4M3FN ... FLOAT4E2M1).
bool isFloatingPoint(DataType t);
bool isIntegral(DataType t);       // signed and unsigned integers, not BOOL nor INT4/2
/// The ONNX 8/4/2-bit types FLOAT8E4M3FN ... INT2 and FLOAT8E8M0.
bool isStorageType(DataType t);
/// True when host data of type `host` holds device data of type `device` as is: the same type, or uint8
/// bytes for FLOAT8_143/FLOAT8_152 (numpy has no such types; PopXL hands them over as uint8).
bool hostHolds(DataType host, DataType device);

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
