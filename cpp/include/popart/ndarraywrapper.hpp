// NDArrayWrapper<T>: an IArray over caller-owned memory (PopART's ndarraywrapper.hpp).
#pragma once
#include "popart/iarray.hpp"

namespace popart {

/// An IArray over caller-owned memory.
template <class T> class NDArrayWrapper : public IArray {
public:
  NDArrayWrapper(T *data, const TensorInfo &info) : data_(data), info_(info) {}
  NDArrayWrapper(T *data, const Shape &shape) : data_(data), info_(getDataType<T>(), shape) {}
  void *data() override { return data_; }
  DataType dataType() const override { return info_.dataType(); }
  std::size_t rank() const override { return info_.shape().size(); }
  int64_t dim(size_t i) const override { return info_.shape().at(i); }
  std::size_t nelms() const override { return static_cast<size_t>(info_.nelms()); }
  const Shape shape() const override { return info_.shape(); }

private:
  T *data_;
  TensorInfo info_;
};

} // namespace popart
