// Plain C++ mirror of the ONNX protobuf messages (onnx.proto, IR version <= 13).
// Fields we do not model (functions, training info, sparse tensors, non-tensor
// types, ...) are kept verbatim in `unknown` so a parse/serialise round trip
// preserves them. The wire codec lives in codec.cpp; nothing here knows protobuf.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace popart::onnxpb {

/// Raw bytes of fields this mirror does not model, re-emitted unchanged.
using UnknownFields = std::string;

struct StringStringEntry {
  std::string key, value;
};

struct OperatorSetId {
  std::string domain;
  int64_t version = 0;
  UnknownFields unknown;
};

struct Dimension {
  bool hasValue = false;  // dim_value set (else dim_param or nothing)
  int64_t value = 0;
  std::string param;
  std::string denotation;
  UnknownFields unknown;
};

struct TypeProto {
  bool hasTensorType = false;   // only TypeProto.Tensor is modelled
  int32_t elemType = 0;         // ONNX TensorProto.DataType
  bool hasShape = false;
  std::vector<Dimension> dims;
  std::string denotation;
  UnknownFields unknown;        // sequence/map/optional/sparse/opaque types
  UnknownFields tensorUnknown;  // unknown fields inside TypeProto.Tensor
  UnknownFields shapeUnknown;   // unknown fields inside TensorShapeProto
};

struct ValueInfo {
  std::string name;
  bool hasType = false;
  TypeProto type;
  std::string docString;
  std::vector<StringStringEntry> metadataProps;
  UnknownFields unknown;
};

struct Tensor {
  std::vector<int64_t> dims;
  int32_t dataType = 0;
  std::vector<float> floatData;
  std::vector<int32_t> int32Data;
  std::vector<std::string> stringData;
  std::vector<int64_t> int64Data;
  std::string name;
  std::string docString;
  bool hasRawData = false;
  std::string rawData;
  std::vector<StringStringEntry> externalData;
  int32_t dataLocation = 0;  // 0 DEFAULT, 1 EXTERNAL
  std::vector<double> doubleData;
  std::vector<uint64_t> uint64Data;
  std::vector<StringStringEntry> metadataProps;
  UnknownFields unknown;     // segment, ...
};

struct Graph;

struct Attribute {
  enum class Type : int32_t {
    Undefined = 0, Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5,
    Floats = 6, Ints = 7, Strings = 8, Tensors = 9, Graphs = 10,
    SparseTensor = 11, SparseTensors = 12, TypeProto = 13, TypeProtos = 14
  };
  std::string name;
  std::string refAttrName;
  std::string docString;
  Type type = Type::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  bool hasT = false, hasG = false, hasF = false, hasI = false, hasS = false;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  UnknownFields unknown;  // sparse tensors, type protos
};

struct Node {
  std::vector<std::string> input, output;
  std::string name, opType, domain, overload;
  std::vector<Attribute> attribute;
  std::string docString;
  std::vector<StringStringEntry> metadataProps;
  UnknownFields unknown;
};

struct Graph {
  std::vector<Node> node;
  std::string name;
  std::vector<Tensor> initializer;
  std::string docString;
  std::vector<ValueInfo> input, output, valueInfo;
  std::vector<StringStringEntry> metadataProps;
  UnknownFields unknown;  // sparse initializers, quantization annotations
};

/// Where a main-graph initializer's bytes were read from (data_location EXTERNAL):
/// modelToHost writes the trained values back there.
struct ExternalDataRef {
  std::string location;  // as written in the model
  std::string path;      // the file, resolved when the model was read
  int64_t offset = 0, length = 0;
};

struct Model {
  int64_t irVersion = 0;
  std::vector<OperatorSetId> opsetImport;
  std::string producerName, producerVersion, domain;
  int64_t modelVersion = 0;
  std::string docString;
  bool hasGraph = false;
  Graph graph;
  std::vector<StringStringEntry> metadataProps;
  UnknownFields unknown;  // training info, functions, configuration
  std::map<std::string, ExternalDataRef> externalInitializers;  // not serialised: filled on reading
};

/// Parses serialised ModelProto bytes. Throws popart::error on malformed input.
/// `baseDir` resolves tensors with external data (empty: leave them external).
Model parseModel(const std::string &bytes, const std::string &baseDir = "");
/// Reads a model file; external data is resolved relative to its folder.
Model loadModelFile(const std::string &path);
/// A file name or serialised ModelProto bytes (PopART's modelProtoOrFilename);
/// a printable string that parses as neither is reported as a missing file.
Model readModelOrFile(const std::string &modelProtoOrFilename);
/// Serialises to ModelProto wire bytes (fields in onnx.proto order).
std::string serializeModel(const Model &model);
/// Parses/serialises a lone TensorProto (used by tests and the Builder).
Tensor parseTensor(const std::string &bytes);
std::string serializeTensor(const Tensor &tensor);

/// Loads the bytes of every tensor stored externally (data_location = EXTERNAL)
/// into raw_data, reading files relative to `baseDir` (the model file's folder,
/// which the files may not leave), and records main-graph initializers in
/// model.externalInitializers.
void resolveExternalData(Model &model, const std::string &baseDir);
/// The same for a model given as bytes: locations are relative to the working
/// directory, as PopART's saveInitializersExternally writes them.
void resolveExternalDataFromWorkingDir(Model &model);
/// Writes each chunk into its file at its offset (one atomic rewrite per file,
/// other bytes of the file kept); `what` names the caller in errors.
struct ExternalChunk {
  std::string path;
  int64_t offset = 0;
  std::string bytes;
};
void writeExternalChunks(const std::vector<ExternalChunk> &chunks, const std::string &what);
/// Writes the raw_data of `tensors` one after the other to `filename` and makes
/// each refer to its bytes there (data_location EXTERNAL, location = filename).
void writeExternalData(const std::vector<Tensor *> &tensors, const std::string &filename);

} // namespace popart::onnxpb
