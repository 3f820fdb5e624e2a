// ONNX ModelProto <-> popart::onnxpb structs, straight on the protobuf wire format.
// Parsing is one pass over a string_view (strings copied once); serialising counts
// each nested message's size before writing it, so output is built without copies.
#include "onnx/model.hpp"
#include "onnx/wire.hpp"
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

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

template <class T> uint64_t toVarint(T v) {
  if constexpr (std::is_enum_v<T>)
    return wire::fromInt32(static_cast<int32_t>(v));
  else if constexpr (std::is_same_v<T, int32_t>)
    return wire::fromInt32(v);
  else
    return static_cast<uint64_t>(v);
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

// ---------------------------------------------------------------------------
// Emitting. Every message has one `emit(sink, msg)` template used for both the
// size pass (SizeSink) and the write pass (ByteSink).

using wire::ByteSink;
using wire::SizeSink;

/// The entries of an `unknown` buffer. Scalar emitters claim the entries with
/// their field number: such an entry is a presence marker recorded by the parser
/// (the field was explicitly set to its default), so the field is emitted from
/// the struct and the marker dropped. Unclaimed entries are re-emitted verbatim.
class Presence {
public:
  explicit Presence(const UnknownFields &unknown) {
    Reader r(unknown, 0, "unknown-field buffer");
    while (!r.done()) {
      Field f = r.next();
      r.skip(f);
      entries_.push_back({f.number, r.span(f), false});
    }
  }
  bool claim(uint32_t number) {
    bool found = false;
    for (auto &e : entries_)
      if (e.number == number) e.claimed = found = true;
    return found;
  }
  template <class S> void flush(S &s) const {
    for (auto &e : entries_)
      if (!e.claimed) s.raw(e.bytes.data(), e.bytes.size());
  }

private:
  struct Entry {
    uint32_t number;
    std::string_view bytes;
    bool claimed;
  };
  std::vector<Entry> entries_;
};

template <class S> void putBytes(S &s, uint32_t n, std::string_view v) {
  wire::tag(s, n, wire::Len);
  s.varint(v.size());
  s.raw(v.data(), v.size());
}

template <class S> void putString(S &s, uint32_t n, const std::string &v, Presence &p) {
  bool marked = p.claim(n);
  if (!v.empty() || marked) putBytes(s, n, v);
}

template <class S, class T> void putVarint(S &s, uint32_t n, T v, Presence &p) {
  bool marked = p.claim(n);
  if (v != T{} || marked) {
    wire::tag(s, n, wire::Varint);
    s.varint(toVarint(v));
  }
}

template <class S> void putStrings(S &s, uint32_t n, const std::vector<std::string> &v) {
  for (auto &x : v) putBytes(s, n, x);
}

template <class S, class T> void putPackedVarints(S &s, uint32_t n, const std::vector<T> &v) {
  if (v.empty()) return;
  size_t size = 0;
  for (T x : v) size += wire::varintSize(toVarint(x));
  wire::tag(s, n, wire::Len);
  s.varint(size);
  if constexpr (std::is_same_v<S, SizeSink>)
    s.n += size;
  else
    for (T x : v) s.varint(toVarint(x));
}

template <class S, class T> void putPackedFixed(S &s, uint32_t n, const std::vector<T> &v) {
  if (v.empty()) return;
  putBytes(s, n, std::string_view(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T)));
}

template <class S, class M> void putMessage(S &s, uint32_t n, const M &m);

template <class S, class M> void putMessages(S &s, uint32_t n, const std::vector<M> &v) {
  for (auto &m : v) putMessage(s, n, m);
}

template <class S> void emit(S &s, const StringStringEntry &e) {
  putBytes(s, 1, e.key);
  putBytes(s, 2, e.value);
}

template <class S> void emit(S &s, const OperatorSetId &o) {
  Presence p(o.unknown);
  putString(s, 1, o.domain, p);
  putVarint(s, 2, o.version, p);
  p.flush(s);
}

template <class S> void emit(S &s, const Dimension &d) {
  Presence p(d.unknown);
  if (d.hasValue) {
    wire::tag(s, 1, wire::Varint);
    s.varint(toVarint(d.value));
  }
  bool paramMarked = p.claim(2);  // dim_value and dim_param are a oneof
  if (!d.param.empty() || (paramMarked && !d.hasValue)) putBytes(s, 2, d.param);
  putString(s, 3, d.denotation, p);
  p.flush(s);
}

struct ShapeOf { const TypeProto &t; };
struct TensorTypeOf { const TypeProto &t; };

template <class S> void emit(S &s, const ShapeOf &shape) {
  putMessages(s, 1, shape.t.dims);
  s.raw(shape.t.shapeUnknown.data(), shape.t.shapeUnknown.size());
}

template <class S> void emit(S &s, const TensorTypeOf &tt) {
  Presence p(tt.t.tensorUnknown);
  putVarint(s, 1, tt.t.elemType, p);
  if (tt.t.hasShape) putMessage(s, 2, ShapeOf{tt.t});
  p.flush(s);
}

template <class S> void emit(S &s, const TypeProto &t) {
  Presence p(t.unknown);
  if (t.hasTensorType) putMessage(s, 1, TensorTypeOf{t});
  putString(s, 6, t.denotation, p);
  p.flush(s);
}

template <class S> void emit(S &s, const ValueInfo &v) {
  Presence p(v.unknown);
  putString(s, 1, v.name, p);
  if (v.hasType) putMessage(s, 2, v.type);
  putString(s, 3, v.docString, p);
  putMessages(s, 4, v.metadataProps);
  p.flush(s);
}

template <class S> void emit(S &s, const Tensor &t) {
  Presence p(t.unknown);
  putPackedVarints(s, 1, t.dims);
  putVarint(s, 2, t.dataType, p);
  putPackedFixed(s, 4, t.floatData);
  putPackedVarints(s, 5, t.int32Data);
  putStrings(s, 6, t.stringData);
  putPackedVarints(s, 7, t.int64Data);
  putString(s, 8, t.name, p);
  if (t.hasRawData || !t.rawData.empty()) putBytes(s, 9, t.rawData);
  putPackedFixed(s, 10, t.doubleData);
  putPackedVarints(s, 11, t.uint64Data);
  putString(s, 12, t.docString, p);
  putMessages(s, 13, t.externalData);
  putVarint(s, 14, t.dataLocation, p);
  putMessages(s, 16, t.metadataProps);
  p.flush(s);
}

template <class S> void emit(S &s, const Graph &g);

const Graph &graphOrEmpty(const std::shared_ptr<Graph> &g) {
  static const Graph empty;
  return g ? *g : empty;
}

template <class S> void emitAttributeValues(S &s, const Attribute &a) {
  if (a.hasF || a.f != 0) {
    wire::tag(s, 2, wire::Fixed32);
    s.raw(&a.f, sizeof(float));
  }
  if (a.hasI || a.i != 0) {
    wire::tag(s, 3, wire::Varint);
    s.varint(toVarint(a.i));
  }
  if (a.hasS || !a.s.empty()) putBytes(s, 4, a.s);
  if (a.hasT) putMessage(s, 5, a.t);
  if (a.hasG || a.g) putMessage(s, 6, graphOrEmpty(a.g));
  putPackedFixed(s, 7, a.floats);
  putPackedVarints(s, 8, a.ints);
  putStrings(s, 9, a.strings);
  putMessages(s, 10, a.tensors);
  for (auto &g : a.graphs) putMessage(s, 11, graphOrEmpty(g));
}

template <class S> void emit(S &s, const Attribute &a) {
  Presence p(a.unknown);
  putString(s, 1, a.name, p);
  emitAttributeValues(s, a);
  putString(s, 13, a.docString, p);
  putVarint(s, 20, a.type, p);
  putString(s, 21, a.refAttrName, p);
  p.flush(s);
}

template <class S> void emit(S &s, const Node &n) {
  Presence p(n.unknown);
  putStrings(s, 1, n.input);
  putStrings(s, 2, n.output);
  putString(s, 3, n.name, p);
  putString(s, 4, n.opType, p);
  putMessages(s, 5, n.attribute);
  putString(s, 6, n.docString, p);
  putString(s, 7, n.domain, p);
  putString(s, 8, n.overload, p);
  putMessages(s, 9, n.metadataProps);
  p.flush(s);
}

template <class S> void emit(S &s, const Graph &g) {
  Presence p(g.unknown);
  putMessages(s, 1, g.node);
  putString(s, 2, g.name, p);
  putMessages(s, 5, g.initializer);
  putString(s, 10, g.docString, p);
  putMessages(s, 11, g.input);
  putMessages(s, 12, g.output);
  putMessages(s, 13, g.valueInfo);
  putMessages(s, 16, g.metadataProps);
  p.flush(s);
}

template <class S> void emit(S &s, const Model &m) {
  Presence p(m.unknown);
  putVarint(s, 1, m.irVersion, p);
  putString(s, 2, m.producerName, p);
  putString(s, 3, m.producerVersion, p);
  putString(s, 4, m.domain, p);
  putVarint(s, 5, m.modelVersion, p);
  putString(s, 6, m.docString, p);
  if (m.hasGraph) putMessage(s, 7, m.graph);
  putMessages(s, 8, m.opsetImport);
  putMessages(s, 14, m.metadataProps);
  p.flush(s);
}

/// Size first (one SizeSink pass over the subtree), then the bytes.
template <class S, class M> void putMessage(S &s, uint32_t n, const M &m) {
  SizeSink size;
  emit(size, m);
  wire::tag(s, n, wire::Len);
  s.varint(size.n);
  if constexpr (std::is_same_v<S, SizeSink>)
    s.n += size.n;
  else
    emit(s, m);
}

template <class M> std::string serializeTop(const M &m) {
  SizeSink size;
  emit(size, m);
  std::string out;
  out.reserve(size.n);
  ByteSink sink{out};
  emit(sink, m);
  return out;
}

// ---------------------------------------------------------------------------
// External data.

int64_t externalInt(const StringStringEntry &e, const Tensor &t) {
  int64_t v = -1;
  auto end = e.value.data() + e.value.size();
  auto [ptr, ec] = std::from_chars(e.value.data(), end, v);
  if (ec != std::errc() || ptr != end || v < 0)
    throw error("tensor '{}' has external data {} '{}', expected a non-negative integer", t.name,
                e.key, e.value);
  return v;
}

std::filesystem::path externalPath(const Tensor &t, const std::string &location,
                                   const std::string &baseDir) {
  std::filesystem::path loc(location);
  if (location.empty())
    throw error("tensor '{}' is stored externally but has no 'location'", t.name);
  bool escapes = loc.is_absolute() || std::any_of(loc.begin(), loc.end(), [](auto &part) {
                   return part.string() == "..";
                 });
  if (escapes)
    throw error("tensor '{}' has external data location '{}' outside the model folder '{}'",
                t.name, location, baseDir);
  return std::filesystem::path(baseDir) / loc;
}

void loadExternal(Tensor &t, const std::string &baseDir) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto &e : t.externalData) {
    if (e.key == "location") location = e.value;
    if (e.key == "offset") offset = externalInt(e, t);
    if (e.key == "length") length = externalInt(e, t);
  }
  auto path = externalPath(t, location, baseDir);
  std::error_code ec;
  bool regular = std::filesystem::is_regular_file(path, ec);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  auto fileSize = static_cast<int64_t>(in ? static_cast<std::streamoff>(in.tellg()) : -1);
  if (!regular || !in || fileSize < 0)
    throw error("cannot read external data file '{}' of tensor '{}'", path.string(), t.name);
  if (length < 0) length = std::max<int64_t>(fileSize - offset, 0);
  if (offset > fileSize || length > fileSize - offset)
    throw error("external data of tensor '{}' (offset {}, length {}) is beyond the end of '{}' "
                "({} bytes)", t.name, offset, length, path.string(), fileSize);
  t.rawData.resize(static_cast<size_t>(length));
  in.seekg(offset);
  if (!in.read(t.rawData.data(), length))
    throw error("failed reading external data of tensor '{}' from '{}'", t.name, path.string());
  t.hasRawData = true;
  t.externalData.clear();
  t.dataLocation = 0;
}

void resolveTensor(Tensor &t, const std::string &baseDir) {
  if (t.dataLocation == 1) loadExternal(t, baseDir);
}

void resolveGraph(Graph &g, const std::string &baseDir) {
  for (auto &t : g.initializer) resolveTensor(t, baseDir);
  for (auto &n : g.node)
    for (auto &a : n.attribute) {
      if (a.hasT) resolveTensor(a.t, baseDir);
      for (auto &t : a.tensors) resolveTensor(t, baseDir);
      if (a.g) resolveGraph(*a.g, baseDir);
      for (auto &sub : a.graphs)
        if (sub) resolveGraph(*sub, baseDir);
    }
}

} // namespace

Model parseModel(const std::string &bytes, const std::string &baseDir) {
  Model model;
  parseModelInto(Reader(bytes, 0, "model"), model);
  if (!baseDir.empty()) resolveExternalData(model, baseDir);
  return model;
}

Model loadModelFile(const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw error("cannot read ONNX model file '{}': not a readable file", path);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  auto size = in ? static_cast<std::streamoff>(in.tellg()) : std::streamoff(-1);
  std::string bytes;
  if (size >= 0) {
    bytes.resize(static_cast<size_t>(size));
    in.seekg(0);
    in.read(bytes.data(), size);
  }
  if (!in || size < 0) throw error("cannot read ONNX model file '{}'", path);
  auto dir = std::filesystem::path(path).parent_path().string();
  return parseModel(bytes, dir.empty() ? "." : dir);
}

std::string serializeModel(const Model &model) { return serializeTop(model); }

Tensor parseTensor(const std::string &bytes) {
  Tensor tensor;
  parseTensorInto(Reader(bytes, 0, "tensor"), tensor);
  return tensor;
}

std::string serializeTensor(const Tensor &tensor) { return serializeTop(tensor); }

void resolveExternalData(Model &model, const std::string &baseDir) {
  resolveGraph(model.graph, baseDir);
}

} // namespace popart::onnxpb
