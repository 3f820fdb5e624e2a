// ONNX protobuf wire format -> popart::onnxpb structs: one pass over a
// string_view (strings copied once), with per-message field rules that reject
// malformed input. Writing is in codec_write.cpp, external data in external_data.cpp.
#include "onnx/model.hpp"
#include "onnx/wire.hpp"
#include <algorithm>
#include <charconv>

namespace popart::onnxpb {
namespace {
using wire::Field;
using wire::Reader;

constexpr int kMaxGraphDepth = 64;

template <class T> T fromVarint(uint64_t v) {
  if constexpr (std::is_enum_v<T>)
    return static_cast<T>(wire::toInt32(v));
  else if constexpr (std::is_same_v<T, int32_t>)
    return wire::toInt32(v);
  else
    return static_cast<T>(v);
}

// ---------------------------------------------------------------------------
// Unmodelled messages. Their bytes are kept verbatim, but first checked against
// this schema (wire types, nested messages), so corrupt input is rejected here.

enum class Kind : uint8_t {
  Int, Ints, String, Message, Graph, Node, Attribute, Tensor, Type, Shape, Entry, Opset, ValueInfo
};
struct Rule;
struct Rules {
  const char *name = "";
  const Rule *begin = nullptr;
  size_t size = 0;
};
struct Rule {
  uint32_t number;
  Kind kind;
  Rules sub = {};
};
template <size_t N> constexpr Rules rules(const char *name, const Rule (&r)[N]) {
  return {name, r, N};
}

const Rule kSimpleSharded[] = {{1, Kind::Int}, {2, Kind::String}, {3, Kind::Int}};
const Rule kShardedDim[] = {{1, Kind::Int},
                            {2, Kind::Message, rules("SimpleShardedDimProto", kSimpleSharded)}};
const Rule kIntIntList[] = {{1, Kind::Int}, {2, Kind::Ints}};
const Rule kShardingSpec[] = {{1, Kind::String}, {2, Kind::Ints},
                              {3, Kind::Message, rules("IntIntListEntryProto", kIntIntList)},
                              {4, Kind::Message, rules("ShardedDimProto", kShardedDim)}};
const Rule kNodeDevice[] = {{1, Kind::String},
                            {2, Kind::Message, rules("ShardingSpecProto", kShardingSpec)},
                            {3, Kind::Int}};
const Rule kTrainingInfo[] = {{1, Kind::Graph}, {2, Kind::Graph}, {3, Kind::Entry}, {4, Kind::Entry}};
const Rule kFunction[] = {{1, Kind::String}, {4, Kind::String}, {5, Kind::String},
                          {6, Kind::String}, {7, Kind::Node}, {8, Kind::String},
                          {9, Kind::Opset}, {10, Kind::String}, {11, Kind::Attribute},
                          {12, Kind::ValueInfo}, {13, Kind::String}, {14, Kind::Entry}};
const Rule kDeviceConfig[] = {{1, Kind::String}, {2, Kind::Int}, {3, Kind::String}};
const Rule kTensorAnnotation[] = {{1, Kind::String}, {2, Kind::Entry}};
const Rule kSparseTensor[] = {{1, Kind::Tensor}, {2, Kind::Tensor}, {3, Kind::Ints}};
const Rule kSegment[] = {{1, Kind::Int}, {2, Kind::Int}};
const Rule kElemType[] = {{1, Kind::Type}};
const Rule kMapType[] = {{1, Kind::Int}, {2, Kind::Type}};
const Rule kSparseType[] = {{1, Kind::Int}, {2, Kind::Shape}};
const Rule kOpaqueType[] = {{1, Kind::String}, {2, Kind::String}};

// The unmodelled fields of each modelled message.
const Rule kModelExtra[] = {{20, Kind::Message, rules("TrainingInfoProto", kTrainingInfo)},
                            {25, Kind::Message, rules("FunctionProto", kFunction)},
                            {26, Kind::Message, rules("DeviceConfigurationProto", kDeviceConfig)}};
const Rule kGraphExtra[] = {{14, Kind::Message, rules("TensorAnnotation", kTensorAnnotation)},
                            {15, Kind::Message, rules("SparseTensorProto", kSparseTensor)}};
const Rule kNodeExtra[] = {
    {10, Kind::Message, rules("NodeDeviceConfigurationProto", kNodeDevice)}};
const Rule kAttributeExtra[] = {{14, Kind::Type}, {15, Kind::Type},
                                {22, Kind::Message, rules("SparseTensorProto", kSparseTensor)},
                                {23, Kind::Message, rules("SparseTensorProto", kSparseTensor)}};
const Rule kTensorExtra[] = {{3, Kind::Message, rules("TensorProto.Segment", kSegment)}};
const Rule kTypeExtra[] = {{4, Kind::Message, rules("TypeProto.Sequence", kElemType)},
                           {5, Kind::Message, rules("TypeProto.Map", kMapType)},
                           {7, Kind::Message, rules("TypeProto.Opaque", kOpaqueType)},
                           {8, Kind::Message, rules("TypeProto.SparseTensor", kSparseType)},
                           {9, Kind::Message, rules("TypeProto.Optional", kElemType)}};

/// Checks field `f` against `extra` (if listed there) and appends it verbatim.
void keepUnknown(Reader &r, const Field &f, UnknownFields &unknown, const Rules &extra = {},
                 int depth = 0);

// ---------------------------------------------------------------------------
// Parsing helpers. Singular scalars without a has-flag in the structs keep
// their presence when explicitly set to the default value: the raw field is
// appended to `unknown`, and the emitter below re-emits it (see Presence).

std::string readString(Reader &r, const Field &f, const char *owner) {
  r.expect(f, wire::Len, owner);
  return std::string(r.bytes());
}

void setString(Reader &r, const Field &f, const char *owner, std::string &dst,
               UnknownFields &unknown) {
  dst = readString(r, f, owner);
  if (dst.empty()) unknown.append(r.span(f));
}

template <class T>
void setVarint(Reader &r, const Field &f, const char *owner, T &dst, UnknownFields &unknown) {
  r.expect(f, wire::Varint, owner);
  dst = fromVarint<T>(r.varint());
  if (dst == T{}) unknown.append(r.span(f));
}

/// A reader over the payload of embedded-message field `f`.
Reader message(Reader &r, const Field &f, const char *owner) {
  r.expect(f, wire::Len, owner);
  return r.sub(r.bytes());
}

template <class T>
void addVarints(Reader &r, const Field &f, const char *owner, std::vector<T> &out) {
  if (f.type == wire::Varint) {
    out.push_back(fromVarint<T>(r.varint()));
    return;
  }
  r.expect(f, wire::Len, owner);
  auto payload = r.bytes();
  auto ends = std::count_if(payload.begin(), payload.end(),
                            [](char c) { return !(static_cast<uint8_t>(c) & 0x80); });
  out.reserve(out.size() + static_cast<size_t>(ends));
  Reader p = r.sub(payload);
  while (!p.done()) out.push_back(fromVarint<T>(p.varint()));
}

template <class T>
void addFixed(Reader &r, const Field &f, const char *owner, std::vector<T> &out) {
  constexpr uint32_t single = sizeof(T) == 4 ? wire::Fixed32 : wire::Fixed64;
  if (f.type == single) {
    out.push_back(r.fixed<T>());
    return;
  }
  r.expect(f, wire::Len, owner);
  size_t at = r.offset();
  auto payload = r.bytes();
  if (payload.size() % sizeof(T))
    r.failAt("packed field " + std::to_string(f.number) + " of " + owner + " has length " +
                 std::to_string(payload.size()) + ", not a multiple of " +
                 std::to_string(sizeof(T)),
             at);
  if (payload.empty()) return;  // (memcpy with null pointers is undefined)
  size_t old = out.size();
  out.resize(old + payload.size() / sizeof(T));
  std::memcpy(out.data() + old, payload.data(), payload.size());
}

// ---------------------------------------------------------------------------
// Parsing, one function per message. Each merges into `out` as protobuf does
// when a singular embedded message occurs more than once.

void parseEntry(Reader r, StringStringEntry &out) {
  while (!r.done()) {
    Field f = r.next();
    if (f.number == 1)
      out.key = readString(r, f, "StringStringEntryProto");
    else if (f.number == 2)
      out.value = readString(r, f, "StringStringEntryProto");
    else
      r.skip(f);  // the struct has no room for unknown fields here
  }
}

void addEntry(Reader &r, const Field &f, const char *owner, std::vector<StringStringEntry> &out) {
  out.emplace_back();
  parseEntry(message(r, f, owner), out.back());
}

void parseOpset(Reader r, OperatorSetId &out) {
  const char *me = "OperatorSetIdProto";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1: setString(r, f, me, out.domain, out.unknown); break;
    case 2: setVarint(r, f, me, out.version, out.unknown); break;
    default: keepUnknown(r, f, out.unknown);
    }
  }
}

void parseDimension(Reader r, Dimension &out) {  // dim_value / dim_param are a oneof
  const char *me = "TensorShapeProto.Dimension";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1:
      r.expect(f, wire::Varint, me);
      out.value = fromVarint<int64_t>(r.varint());
      out.hasValue = true;
      out.param.clear();
      break;
    case 2:
      setString(r, f, me, out.param, out.unknown);
      out.hasValue = false;
      out.value = 0;
      break;
    case 3: setString(r, f, me, out.denotation, out.unknown); break;
    default: keepUnknown(r, f, out.unknown);
    }
  }
}

void parseShape(Reader r, TypeProto &out) {
  while (!r.done()) {
    Field f = r.next();
    if (f.number == 1) {
      out.dims.emplace_back();
      parseDimension(message(r, f, "TensorShapeProto"), out.dims.back());
    } else {
      keepUnknown(r, f, out.shapeUnknown);
    }
  }
}

void parseTensorType(Reader r, TypeProto &out) {
  const char *me = "TypeProto.Tensor";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1: setVarint(r, f, me, out.elemType, out.tensorUnknown); break;
    case 2:
      out.hasShape = true;
      parseShape(message(r, f, me), out);
      break;
    default: keepUnknown(r, f, out.tensorUnknown);
    }
  }
}

void parseType(Reader r, TypeProto &out) {
  const char *me = "TypeProto";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1:
      out.hasTensorType = true;
      parseTensorType(message(r, f, me), out);
      break;
    case 6: setString(r, f, me, out.denotation, out.unknown); break;
    default: keepUnknown(r, f, out.unknown, rules("TypeProto", kTypeExtra));
    }
  }
}

void parseValueInfo(Reader r, ValueInfo &out) {
  const char *me = "ValueInfoProto";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1: setString(r, f, me, out.name, out.unknown); break;
    case 2:
      out.hasType = true;
      parseType(message(r, f, me), out.type);
      break;
    case 3: setString(r, f, me, out.docString, out.unknown); break;
    case 4: addEntry(r, f, me, out.metadataProps); break;
    default: keepUnknown(r, f, out.unknown);
    }
  }
}

void parseTensorField(Reader &r, const Field &f, Tensor &out) {
  const char *me = "TensorProto";
  switch (f.number) {
  case 1: addVarints(r, f, me, out.dims); break;
  case 2: setVarint(r, f, me, out.dataType, out.unknown); break;
  case 4: addFixed(r, f, me, out.floatData); break;
  case 5: addVarints(r, f, me, out.int32Data); break;
  case 6: out.stringData.push_back(readString(r, f, me)); break;
  case 7: addVarints(r, f, me, out.int64Data); break;
  case 8: setString(r, f, me, out.name, out.unknown); break;
  case 9:
    out.rawData = readString(r, f, me);
    out.hasRawData = true;
    break;
  case 10: addFixed(r, f, me, out.doubleData); break;
  case 11: addVarints(r, f, me, out.uint64Data); break;
  case 12: setString(r, f, me, out.docString, out.unknown); break;
  case 13: addEntry(r, f, me, out.externalData); break;
  case 14: setVarint(r, f, me, out.dataLocation, out.unknown); break;
  case 16: addEntry(r, f, me, out.metadataProps); break;
  default: keepUnknown(r, f, out.unknown, rules("TensorProto", kTensorExtra));
  }
}

void parseTensorInto(Reader r, Tensor &out) {
  while (!r.done()) {
    Field f = r.next();
    parseTensorField(r, f, out);
  }
}

void parseGraph(Reader r, Graph &out, int depth);

void parseSubgraph(Reader &r, const Field &f, std::shared_ptr<Graph> &g, int depth) {
  Reader sub = message(r, f, "AttributeProto");
  if (!g) g = std::make_shared<Graph>();
  parseGraph(sub, *g, depth + 1);
}

void parseAttributeField(Reader &r, const Field &f, Attribute &out, int depth) {
  const char *me = "AttributeProto";
  switch (f.number) {
  case 1: setString(r, f, me, out.name, out.unknown); break;
  case 2:
    r.expect(f, wire::Fixed32, me);
    out.f = r.fixed<float>();
    out.hasF = true;
    break;
  case 3:
    r.expect(f, wire::Varint, me);
    out.i = fromVarint<int64_t>(r.varint());
    out.hasI = true;
    break;
  case 4:
    out.s = readString(r, f, me);
    out.hasS = true;
    break;
  case 5:
    out.hasT = true;
    parseTensorInto(message(r, f, me), out.t);
    break;
  case 6:
    out.hasG = true;
    parseSubgraph(r, f, out.g, depth);
    break;
  case 7: addFixed(r, f, me, out.floats); break;
  case 8: addVarints(r, f, me, out.ints); break;
  case 9: out.strings.push_back(readString(r, f, me)); break;
  case 10:
    out.tensors.emplace_back();
    parseTensorInto(message(r, f, me), out.tensors.back());
    break;
  case 11:
    out.graphs.emplace_back();
    parseSubgraph(r, f, out.graphs.back(), depth);
    break;
  case 13: setString(r, f, me, out.docString, out.unknown); break;
  case 20: setVarint(r, f, me, out.type, out.unknown); break;
  case 21: setString(r, f, me, out.refAttrName, out.unknown); break;
  default: keepUnknown(r, f, out.unknown, rules("AttributeProto", kAttributeExtra), depth);
  }
}

void parseAttribute(Reader r, Attribute &out, int depth) {
  while (!r.done()) {
    Field f = r.next();
    parseAttributeField(r, f, out, depth);
  }
}

void parseNode(Reader r, Node &out, int depth) {
  const char *me = "NodeProto";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1: out.input.push_back(readString(r, f, me)); break;
    case 2: out.output.push_back(readString(r, f, me)); break;
    case 3: setString(r, f, me, out.name, out.unknown); break;
    case 4: setString(r, f, me, out.opType, out.unknown); break;
    case 5:
      out.attribute.emplace_back();
      parseAttribute(message(r, f, me), out.attribute.back(), depth);
      break;
    case 6: setString(r, f, me, out.docString, out.unknown); break;
    case 7: setString(r, f, me, out.domain, out.unknown); break;
    case 8: setString(r, f, me, out.overload, out.unknown); break;
    case 9: addEntry(r, f, me, out.metadataProps); break;
    default: keepUnknown(r, f, out.unknown, rules("NodeProto", kNodeExtra), depth);
    }
  }
}

void addValueInfo(Reader &r, const Field &f, std::vector<ValueInfo> &out) {
  out.emplace_back();
  parseValueInfo(message(r, f, "GraphProto"), out.back());
}

void parseGraph(Reader r, Graph &out, int depth) {
  const char *me = "GraphProto";
  if (depth > kMaxGraphDepth)
    r.fail("subgraphs nested deeper than " + std::to_string(kMaxGraphDepth) + " levels");
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1:
      out.node.emplace_back();
      parseNode(message(r, f, me), out.node.back(), depth);
      break;
    case 2: setString(r, f, me, out.name, out.unknown); break;
    case 5:
      out.initializer.emplace_back();
      parseTensorInto(message(r, f, me), out.initializer.back());
      break;
    case 10: setString(r, f, me, out.docString, out.unknown); break;
    case 11: addValueInfo(r, f, out.input); break;
    case 12: addValueInfo(r, f, out.output); break;
    case 13: addValueInfo(r, f, out.valueInfo); break;
    case 16: addEntry(r, f, me, out.metadataProps); break;
    default: keepUnknown(r, f, out.unknown, rules("GraphProto", kGraphExtra), depth);
    }
  }
}

void parseModelInto(Reader r, Model &out) {
  const char *me = "ModelProto";
  while (!r.done()) {
    Field f = r.next();
    switch (f.number) {
    case 1: setVarint(r, f, me, out.irVersion, out.unknown); break;
    case 2: setString(r, f, me, out.producerName, out.unknown); break;
    case 3: setString(r, f, me, out.producerVersion, out.unknown); break;
    case 4: setString(r, f, me, out.domain, out.unknown); break;
    case 5: setVarint(r, f, me, out.modelVersion, out.unknown); break;
    case 6: setString(r, f, me, out.docString, out.unknown); break;
    case 7:
      out.hasGraph = true;
      parseGraph(message(r, f, me), out.graph, 1);
      break;
    case 8:
      out.opsetImport.emplace_back();
      parseOpset(message(r, f, me), out.opsetImport.back());
      break;
    case 14: addEntry(r, f, me, out.metadataProps); break;
    default: keepUnknown(r, f, out.unknown, rules("ModelProto", kModelExtra));
    }
  }
}

void checkMessage(Reader r, const Rules &rules, int depth);

void checkField(Reader &r, const Field &f, const Rule &rule, const char *owner, int depth) {
  if (rule.kind == Kind::Int) {
    r.expect(f, wire::Varint, owner);
    r.varint();
    return;
  }
  if (rule.kind == Kind::Ints) {
    std::vector<int64_t> ints;
    addVarints(r, f, owner, ints);
    return;
  }
  Reader sub = message(r, f, owner);  // every other kind is length-delimited
  switch (rule.kind) {
  case Kind::Message: checkMessage(sub, rule.sub, depth); break;
  case Kind::Graph: { Graph g; parseGraph(sub, g, depth + 1); break; }
  case Kind::Node: { Node n; parseNode(sub, n, depth); break; }
  case Kind::Attribute: { Attribute a; parseAttribute(sub, a, depth); break; }
  case Kind::Tensor: { Tensor t; parseTensorInto(sub, t); break; }
  case Kind::Type: { TypeProto t; parseType(sub, t); break; }
  case Kind::Shape: { TypeProto t; parseShape(sub, t); break; }
  case Kind::Entry: { StringStringEntry e; parseEntry(sub, e); break; }
  case Kind::Opset: { OperatorSetId o; parseOpset(sub, o); break; }
  case Kind::ValueInfo: { ValueInfo v; parseValueInfo(sub, v); break; }
  default: break;  // String: any bytes
  }
}

const Rule *findRule(const Rules &rules, uint32_t number) {
  for (size_t i = 0; i < rules.size; ++i)
    if (rules.begin[i].number == number) return &rules.begin[i];
  return nullptr;
}

void checkMessage(Reader r, const Rules &rules, int depth) {
  while (!r.done()) {
    Field f = r.next();
    if (const Rule *rule = findRule(rules, f.number))
      checkField(r, f, *rule, rules.name, depth);
    else
      r.skip(f);
  }
}

void keepUnknown(Reader &r, const Field &f, UnknownFields &unknown, const Rules &extra,
                 int depth) {
  if (const Rule *rule = findRule(extra, f.number))
    checkField(r, f, *rule, extra.name, depth);
  else
    r.skip(f);
  unknown.append(r.span(f));
}

} // namespace

Model parseModel(const std::string &bytes, const std::string &baseDir) {
  Model model;
  parseModelInto(Reader(bytes, 0, "model"), model);
  if (!baseDir.empty()) resolveExternalData(model, baseDir);
  return model;
}

Tensor parseTensor(const std::string &bytes) {
  Tensor tensor;
  parseTensorInto(Reader(bytes, 0, "tensor"), tensor);
  return tensor;
}

} // namespace popart::onnxpb
