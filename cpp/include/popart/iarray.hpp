// IArray: a host array (pointer, element type, shape) as step IO reads it (PopART's iarray.hpp).
#pragma once
#include "popart/tensorinfo.hpp"
#include <cstddef>

namespace popart {

/// A host array: pointer, element type and shape (NDArrayWrapper implements it).
class IArray {
public:
  virtual ~IArray() = default;
  virtual void *data() = 0;
  virtual DataType dataType() const = 0;
  virtual std::size_t rank() const = 0;
  virtual int64_t dim(size_t index) const = 0;
  virtual std::size_t nelms() const = 0;
  virtual const Shape shape() const = 0;
};

} // namespace popart
