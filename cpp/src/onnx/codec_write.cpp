// popart::onnxpb structs -> ONNX protobuf wire format. Every message has one
// `emit(sink, msg)` template used for a size pass (SizeSink) and a write pass
// (ByteSink): nested messages are written without intermediate copies, and
// fields the parser kept as unknown bytes are written back verbatim.
#include "onnx/model.hpp"
#include "onnx/wire.hpp"

namespace popart::onnxpb {
namespace {
using wire::Field;
using wire::Reader;

template <class T> uint64_t toVarint(T v) {
  if constexpr (std::is_enum_v<T>)
    return wire::fromInt32(static_cast<int32_t>(v));
  else if constexpr (std::is_same_v<T, int32_t>)
    return wire::fromInt32(v);
  else
    return static_cast<uint64_t>(v);
}

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

} // namespace

std::string serializeModel(const Model &model) { return serializeTop(model); }

std::string serializeTensor(const Tensor &tensor) { return serializeTop(tensor); }

} // namespace popart::onnxpb
