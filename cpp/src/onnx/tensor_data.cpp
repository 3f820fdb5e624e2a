// TensorProto values <-> host bytes, for every data type ONNX stores. Host
// memory holds 4- and 2-bit types one element per byte (in the low bits); ONNX
// packs them, first element in the lowest bits, in raw_data and int32_data.
#include "import.hpp"
#include "model.hpp"
#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/tensorinfo.hpp"
#include <cstring>

namespace popart {
namespace {

template <class Dst, class Src> void castInto(std::vector<char> &out, const std::vector<Src> &src) {
  out.resize(src.size() * sizeof(Dst));
  Dst *d = reinterpret_cast<Dst *>(out.data());
  for (size_t i = 0; i < src.size(); ++i) d[i] = static_cast<Dst>(src[i]);
}

// int32_data holds every type of 32 bits or fewer; float16 and float8 as raw
// bit patterns, 4- and 2-bit types as packed bytes.
void fromInt32Data(std::vector<char> &out, const onnxpb::Tensor &t, DataType type) {
  switch (type) {
  case DataType::INT32: castInto<int32_t>(out, t.int32Data); break;
  case DataType::INT16: castInto<int16_t>(out, t.int32Data); break;
  case DataType::INT8: castInto<int8_t>(out, t.int32Data); break;
  case DataType::UINT16: case DataType::FLOAT16: case DataType::BFLOAT16: castInto<uint16_t>(out, t.int32Data); break;
  case DataType::UINT8: case DataType::BOOL: castInto<uint8_t>(out, t.int32Data); break;
  default:
    if (!isStorageType(type)) throw error("tensor '{}': int32_data cannot hold type {}", t.name, toString(type));
    castInto<uint8_t>(out, t.int32Data);
  }
}

// Packed bytes of n elements of `bits` (4 or 2) each; the last byte is zero-padded.
int64_t packedSize(int64_t n, int64_t bits) { return (n * bits + 7) / 8; }

std::vector<char> unpack(const std::vector<char> &packed, int64_t n, int64_t bits, const std::string &name) {
  if (static_cast<int64_t>(packed.size()) != packedSize(n, bits))
    throw error("tensor '{}' holds {} bytes of packed {}-bit data, expected {} for {} elements", name,
                packed.size(), bits, packedSize(n, bits), n);
  const int64_t perByte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  std::vector<char> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<char>((static_cast<unsigned char>(packed[i / perByte]) >> (i % perByte * bits)) & mask);
  return out;
}

} // namespace

std::string packedRawData(const TensorInfo &info, const void *data) {
  const char *bytes = static_cast<const char *>(data);
  const int64_t bits = dataTypeBits(info.dataType()), n = info.nelms();
  if (bits == 0) throw error("tensors of type {} have no numeric storage", toString(info.dataType()));
  if (bits >= 8) return std::string(bytes, static_cast<size_t>(info.nbytes()));
  const int64_t perByte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  std::string out(static_cast<size_t>(packedSize(n, bits)), '\0');
  for (int64_t i = 0; i < n; ++i)
    out[i / perByte] = static_cast<char>(out[i / perByte] | ((bytes[i] & mask) << (i % perByte * bits)));
  return out;
}

TensorInfo tensorInfoOf(const onnxpb::Tensor &t) {
  return TensorInfo(fromOnnxDataType(t.dataType), Shape(t.dims.begin(), t.dims.end()));
}

std::vector<char> tensorBytes(const onnxpb::Tensor &t, const TensorInfo &info) {
  if (t.dataLocation == 1 && !t.hasRawData) {
    std::string location;
    for (const auto &e : t.externalData)
      if (e.key == "location") location = e.value;
    throw error("tensor '{}' keeps its data in the external file '{}', which was not found (relative "
                "locations are read from the model file's folder, or from the working directory for a "
                "model given as bytes)", t.name, location);
  }
  std::vector<char> out;
  DataType type = info.dataType();
  if (dataTypeBits(type) == 0)
    throw error("tensor '{}' has type {}, which has no numeric storage and is not supported", t.name,
                toString(type));
  if (t.hasRawData) {
    out.assign(t.rawData.begin(), t.rawData.end());
  } else if (!t.floatData.empty()) {
    castInto<float>(out, t.floatData);
  } else if (!t.doubleData.empty()) {
    castInto<double>(out, t.doubleData);
  } else if (!t.int64Data.empty()) {
    castInto<int64_t>(out, t.int64Data);
  } else if (!t.uint64Data.empty()) {
    if (type == DataType::UINT32) castInto<uint32_t>(out, t.uint64Data);
    else castInto<uint64_t>(out, t.uint64Data);
  } else if (!t.int32Data.empty()) {
    fromInt32Data(out, t, type);
  }
  if (dataTypeBits(type) < 8) out = unpack(out, info.nelms(), dataTypeBits(type), t.name);
  if (static_cast<int64_t>(out.size()) != info.nbytes())
    throw error("tensor '{}' holds {} bytes of data, expected {} for {}", t.name, out.size(),
                info.nbytes(), info.toString());
  return out;
}

} // namespace popart
