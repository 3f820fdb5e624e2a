// TensorProto values <-> host bytes, for every data type ONNX stores.
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

// int32_data holds every type of 32 bits or fewer; float16 as raw bit patterns.
void fromInt32Data(std::vector<char> &out, const onnxpb::Tensor &t, DataType type) {
  switch (type) {
  case DataType::INT32: castInto<int32_t>(out, t.int32Data); break;
  case DataType::INT16: castInto<int16_t>(out, t.int32Data); break;
  case DataType::INT8: castInto<int8_t>(out, t.int32Data); break;
  case DataType::UINT16: case DataType::FLOAT16: case DataType::BFLOAT16: castInto<uint16_t>(out, t.int32Data); break;
  case DataType::UINT8: case DataType::BOOL: castInto<uint8_t>(out, t.int32Data); break;
  default: throw error("tensor '{}': int32_data cannot hold type {}", t.name, toString(type));
  }
}

} // namespace

TensorInfo tensorInfoOf(const onnxpb::Tensor &t) {
  return TensorInfo(fromOnnxDataType(t.dataType), Shape(t.dims.begin(), t.dims.end()));
}

std::vector<char> tensorBytes(const onnxpb::Tensor &t, const TensorInfo &info) {
  if (t.dataLocation == 1 && !t.hasRawData)
    throw error("tensor '{}' keeps its data in an external file that was not loaded; load the "
                "model from its file path so external data can be found", t.name);
  std::vector<char> out;
  DataType type = info.dataType();
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
  if (static_cast<int64_t>(out.size()) != info.nbytes())
    throw error("tensor '{}' holds {} bytes of data, expected {} for {}", t.name, out.size(),
                info.nbytes(), info.toString());
  return out;
}

} // namespace popart
