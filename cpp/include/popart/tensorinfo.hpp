// Type and shape of a tensor.
#pragma once
#include "popart/datatype.hpp"
#include "popart/names.hpp"
#include <iosfwd>

namespace popart {

class TensorInfo {
public:
  TensorInfo() = default;
  TensorInfo(DataType t, Shape s);
  /// `type` is a PopART type string such as "FLOAT" or "INT32".
  TensorInfo(const std::string &type, Shape s);
  TensorInfo(const std::string &type, const std::string &shapeText);  // "(2,3)"

  void set(DataType t, Shape s);
  DataType dataType() const { return type_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Dimension i; negative i counts from the end. Throws when out of range.
  int64_t dim(int64_t i) const;
  int64_t nelms() const;
  int64_t nbytes() const;
  bool isSet() const { return type_ != DataType::UNDEFINED; }
  std::string data_type() const;        // "FLOAT"
  std::string data_type_lcase() const;  // "float"
  std::string shapeString() const;      // "[2,3]"
  std::string toString() const;         // "FLOAT [2,3]"

  bool operator==(const TensorInfo &o) const { return type_ == o.type_ && shape_ == o.shape_; }
  bool operator!=(const TensorInfo &o) const { return !(*this == o); }

private:
  DataType type_ = DataType::UNDEFINED;
  Shape shape_;
};

std::string toString(const TensorInfo &info);
std::ostream &operator<<(std::ostream &os, const TensorInfo &info);

/// Numpy-style broadcast of two shapes; throws popart::error naming both.
Shape npOut(const Shape &a, const Shape &b);
TensorInfo npOut(const TensorInfo &a, const TensorInfo &b);

} // namespace popart
