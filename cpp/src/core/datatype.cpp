#include "popart/datatype.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <array>
#include <cctype>

namespace popart {
namespace {

struct TypeRow {
  DataType type;
  const char *name;
  int64_t size;
  int32_t onnx;  // -1: no ONNX equivalent
  int64_t bits;  // in ONNX's packed encoding
};

constexpr std::array<TypeRow, 29> typeTable{{
    {DataType::UINT8, "UINT8", 1, 2, 8},                    {DataType::INT8, "INT8", 1, 3, 8},
    {DataType::UINT16, "UINT16", 2, 4, 16},                 {DataType::INT16, "INT16", 2, 5, 16},
    {DataType::INT32, "INT32", 4, 6, 32},                   {DataType::INT64, "INT64", 8, 7, 64},
    {DataType::UINT32, "UINT32", 4, 12, 32},                {DataType::UINT64, "UINT64", 8, 13, 64},
    {DataType::BOOL, "BOOL", 1, 9, 8},                      {DataType::FLOAT, "FLOAT", 4, 1, 32},
    {DataType::FLOAT16, "FLOAT16", 2, 10, 16},              {DataType::BFLOAT16, "BFLOAT16", 2, 16, 16},
    {DataType::FLOAT8_143, "FLOAT8_143", 1, -1, 8},         {DataType::FLOAT8_152, "FLOAT8_152", 1, -1, 8},
    {DataType::DOUBLE, "DOUBLE", 8, 11, 64},                {DataType::COMPLEX64, "COMPLEX64", 8, 14, 64},
    {DataType::COMPLEX128, "COMPLEX128", 16, 15, 128},      {DataType::STRING, "STRING", 0, 8, 0},
    {DataType::UNDEFINED, "UNDEFINED", 0, 0, 0},            {DataType::FLOAT8E4M3FN, "FLOAT8E4M3FN", 1, 17, 8},
    {DataType::FLOAT8E4M3FNUZ, "FLOAT8E4M3FNUZ", 1, 18, 8}, {DataType::FLOAT8E5M2, "FLOAT8E5M2", 1, 19, 8},
    {DataType::FLOAT8E5M2FNUZ, "FLOAT8E5M2FNUZ", 1, 20, 8}, {DataType::UINT4, "UINT4", 1, 21, 4},
    {DataType::INT4, "INT4", 1, 22, 4},                     {DataType::FLOAT4E2M1, "FLOAT4E2M1", 1, 23, 4},
    {DataType::UINT2, "UINT2", 1, 25, 2},                   {DataType::INT2, "INT2", 1, 26, 2},
    {DataType::FLOAT8E8M0, "FLOAT8E8M0", 1, 24, 8},
}};

const TypeRow &row(DataType t) {
  for (const auto &r : typeTable)
    if (r.type == t) return r;
  throw internal_error("unknown DataType value {}", static_cast<int>(t));
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

} // namespace

std::string toString(DataType t) { return row(t).name; }

std::string toLowerString(DataType t) {
  std::string s = row(t).name;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

DataType dataTypeFromString(const std::string &name) {
  std::string u = upper(name);
  if (u == "FLOAT32") u = "FLOAT";
  if (u == "FLOAT64") u = "DOUBLE";
  if (u == "HALF") u = "FLOAT16";
  for (const auto &r : typeTable)
    if (u == r.name) return r.type;
  throw error("unknown data type string '{}' (expected one of FLOAT, FLOAT16, DOUBLE, INT8, "
              "INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL, BFLOAT16, ...)", name);
}

int64_t dataTypeSize(DataType t) { return row(t).size; }
int64_t dataTypeBits(DataType t) { return row(t).bits; }

bool isFloatingPoint(DataType t) {
  return t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::BFLOAT16 ||
         t == DataType::DOUBLE || t == DataType::FLOAT8_143 || t == DataType::FLOAT8_152;
}

bool isIntegral(DataType t) {
  switch (t) {
  case DataType::UINT8: case DataType::INT8: case DataType::UINT16: case DataType::INT16:
  case DataType::INT32: case DataType::INT64: case DataType::UINT32: case DataType::UINT64:
    return true;
  default:
    return false;
  }
}

bool hostHolds(DataType host, DataType device) {
  if (host == device) return true;
  return host == DataType::UINT8 && (device == DataType::FLOAT8_143 || device == DataType::FLOAT8_152);
}

bool isStorageType(DataType t) { return t >= DataType::FLOAT8E4M3FN && t <= lastDataType; }

int32_t onnxDataType(DataType t) {
  int32_t v = row(t).onnx;
  if (v < 0) throw error("data type {} has no ONNX equivalent", toString(t));
  return v;
}

DataType fromOnnxDataType(int32_t onnxType) {
  for (const auto &r : typeTable)
    if (r.onnx == onnxType) return r.type;
  throw error("ONNX data type {} is not supported by popart", onnxType);
}

} // namespace popart
