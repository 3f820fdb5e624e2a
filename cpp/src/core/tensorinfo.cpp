#include "popart/tensorinfo.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <ostream>

namespace popart {

TensorInfo::TensorInfo(DataType t, Shape s) { set(t, std::move(s)); }

TensorInfo::TensorInfo(const std::string &type, Shape s) { set(dataTypeFromString(type), std::move(s)); }

TensorInfo::TensorInfo(const std::string &type, const std::string &shapeText) {
  Shape s;
  std::string num;
  for (char c : shapeText + ",") {
    if (c >= '0' && c <= '9') {
      num += c;
    } else if (c == ',' || c == ')' || c == ']') {
      if (num.size() > 18) throw error("cannot parse shape '{}': dimension {} is too large", shapeText, num);
      if (!num.empty()) s.push_back(std::stoll(num));
      num.clear();
    } else if (c != '(' && c != '[' && c != ' ') {
      throw error("cannot parse shape '{}': unexpected character '{}'", shapeText, c);
    }
  }
  set(dataTypeFromString(type), std::move(s));
}

void TensorInfo::set(DataType t, Shape s) {
  for (auto d : s)
    if (d < 0) throw error("invalid shape {}: dimensions must be non-negative", s);
  // Element and byte counts must fit int64 so nelms()/nbytes() never wrap.
  int64_t n = 1;
  for (auto d : s)
    if (__builtin_mul_overflow(n, d, &n))
      throw error("invalid shape {}: the element count overflows 64 bits", s);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, std::max<int64_t>(dataTypeSize(t), 1), &bytes))
    throw error("invalid shape {} of {}: the byte size overflows 64 bits", s, popart::toString(t));
  type_ = t;
  shape_ = std::move(s);
}

int64_t TensorInfo::dim(int64_t i) const {
  int64_t r = rank();
  if (i < -r || i >= r) throw error("dimension {} out of range for shape {}", i, shape_);
  return shape_[i < 0 ? i + r : i];
}

int64_t TensorInfo::nelms() const {
  int64_t n = 1;
  for (auto d : shape_) n *= d;
  return n;
}

int64_t TensorInfo::nbytes() const { return nelms() * dataTypeSize(type_); }
std::string TensorInfo::data_type() const { return popart::toString(type_); }
std::string TensorInfo::data_type_lcase() const { return toLowerString(type_); }
std::string TensorInfo::shapeString() const { return FormatArg(shape_).str(); }
std::string TensorInfo::toString() const { return data_type() + " " + shapeString(); }
std::string toString(const TensorInfo &info) { return info.toString(); }
std::ostream &operator<<(std::ostream &os, const TensorInfo &info) { return os << info.toString(); }

Shape npOut(const Shape &a, const Shape &b) {
  size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      throw error("shapes {} and {} cannot be broadcast together (dimension {}: {} vs {})", a, b,
                  i, da, db);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorInfo npOut(const TensorInfo &a, const TensorInfo &b) {
  if (a.dataType() != b.dataType())
    throw error("incompatible types {} and {}", a.data_type(), b.data_type());
  return TensorInfo(a.dataType(), npOut(a.shape(), b.shape()));
}

} // namespace popart
