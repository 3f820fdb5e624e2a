// Protobuf wire format primitives (private to cpp/src/onnx): a bounds-checked
// Reader over a string_view that throws popart::error on malformed bytes, and
// two output sinks (byte counter, byte writer) sharing one emit code path.
#pragma once
#include "popart/error.hpp"
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the ONNX wire codec copies fixed32/fixed64 arrays and assumes a little-endian host"
#endif

namespace popart::onnxpb::wire {

enum WireType : uint32_t { Varint = 0, Fixed64 = 1, Len = 2, Fixed32 = 5 };

/// One field tag as read from the input; `start` is the tag's position in the
/// enclosing message, so the whole field can be kept verbatim when unknown.
struct Field {
  uint32_t number = 0;
  uint32_t type = 0;
  size_t start = 0;
};

class Reader {
public:
  Reader(std::string_view data, size_t base, const char *kind)
      : data_(data), base_(base), kind_(kind) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }

  [[noreturn]] void fail(std::string_view what) const { failAt(what, offset()); }
  [[noreturn]] void failAt(std::string_view what, size_t absOffset) const {
    throw error("malformed ONNX {}: {} at byte offset {}", kind_, what, absOffset);
  }

  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (done()) fail("truncated varint");
      auto b = static_cast<uint8_t>(data_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 10 bytes");
  }

  template <class T> T fixed() {
    static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
    if (data_.size() - pos_ < sizeof(T)) fail("truncated fixed-width value");
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  /// Payload of a length-delimited field, checked against the bytes left.
  std::string_view bytes() {
    size_t at = offset();
    uint64_t n = varint();
    if (n > data_.size() - pos_)
      failAt("length " + std::to_string(n) + " exceeds the " +
                 std::to_string(data_.size() - pos_) + " bytes left",
             at);
    auto v = data_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return v;
  }

  Field next() {
    Field f;
    f.start = pos_;
    uint64_t tag = varint();
    f.number = static_cast<uint32_t>(tag >> 3);
    f.type = static_cast<uint32_t>(tag & 7);
    if (f.number == 0 || (tag >> 3) > 0x1fffffff) failAt("invalid field number", base_ + f.start);
    if (f.type == 3 || f.type == 4) failAt("group wire types are not supported", base_ + f.start);
    if (f.type > 5) failAt("invalid wire type " + std::to_string(f.type), base_ + f.start);
    return f;
  }

  void skip(const Field &f) {
    switch (f.type) {
    case Varint: varint(); break;
    case Fixed64: fixed<uint64_t>(); break;
    case Len: bytes(); break;
    default: fixed<uint32_t>(); break;
    }
  }

  /// The raw bytes of field `f` (tag and payload), valid once it was consumed.
  std::string_view span(const Field &f) const { return data_.substr(f.start, pos_ - f.start); }

  /// A reader over a payload returned by bytes(), keeping absolute offsets.
  /// Message nesting is bounded so hostile input cannot exhaust the stack.
  Reader sub(std::string_view payload) const {
    size_t at = base_ + static_cast<size_t>(payload.data() - data_.data());
    if (nesting_ >= kMaxNesting)
      failAt("messages nested deeper than " + std::to_string(kMaxNesting) + " levels", at);
    Reader r(payload, at, kind_);
    r.nesting_ = nesting_ + 1;
    return r;
  }

  void expect(const Field &f, uint32_t type, const char *message) const {
    if (f.type != type)
      failAt("field " + std::to_string(f.number) + " of " + message + " has wire type " +
                 std::to_string(f.type) + ", expected " + std::to_string(type),
             base_ + f.start);
  }

  static constexpr int kMaxNesting = 512;

private:
  std::string_view data_;
  size_t base_;
  const char *kind_;
  size_t pos_ = 0;
  int nesting_ = 0;
};

inline size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

/// Counts the bytes an emit pass would write.
struct SizeSink {
  size_t n = 0;
  void varint(uint64_t v) { n += varintSize(v); }
  void raw(const void *, size_t k) { n += k; }
};

/// Appends the bytes of an emit pass to a string (reserved by the caller).
struct ByteSink {
  std::string &out;
  void varint(uint64_t v) {
    char buf[10];
    size_t k = 0;
    for (; v >= 0x80; v >>= 7) buf[k++] = static_cast<char>(v | 0x80);
    buf[k++] = static_cast<char>(v);
    out.append(buf, k);
  }
  void raw(const void *p, size_t k) { out.append(static_cast<const char *>(p), k); }
};

template <class S> void tag(S &s, uint32_t number, WireType type) {
  s.varint((static_cast<uint64_t>(number) << 3) | type);
}

/// int32 values are sign-extended to 64 bits (negative ones take 10 bytes).
inline uint64_t fromInt32(int32_t v) { return static_cast<uint64_t>(static_cast<int64_t>(v)); }
inline int32_t toInt32(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

} // namespace popart::onnxpb::wire
