// Axis and shape helpers shared by the data-movement ops (Reshape family,
// Transpose, Concat, Split, Slice, Gather, Shape): axis normalisation with
// clear errors, and dimension products.
#pragma once
#include "popart/error.hpp"
#include "popart/names.hpp"
#include "popart/opidentifiers.hpp"
#include <algorithm>
#include <functional>
#include <numeric>

namespace popart::shapeutil {

/// Maps an axis in [-rank, rank) to [0, rank); `what` names it in errors.
inline int64_t normaliseAxis(int64_t axis, int64_t rank, const char *what = "axis") {
  if (axis < -rank || axis >= rank)
    throw error("{} {} out of range for rank {} (expected [{}, {}])", what, axis, rank, -rank, rank - 1);
  return axis < 0 ? axis + rank : axis;
}

/// Normalises every axis and rejects duplicates.
inline std::vector<int64_t> normaliseAxes(const std::vector<int64_t> &axes, int64_t rank,
                                          const char *what = "axes") {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t n = normaliseAxis(a, rank, what);
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw error("{} {} contain axis {} more than once", what, axes, a);
    out.push_back(n);
  }
  return out;
}

/// Product of dims [b, e) of `s`.
inline int64_t product(const Shape &s, size_t b, size_t e) {
  return std::accumulate(s.begin() + static_cast<std::ptrdiff_t>(b), s.begin() + static_cast<std::ptrdiff_t>(e),
                         int64_t{1}, std::multiplies<int64_t>());
}

/// Types the byte-copying ops accept: every fixed-size element type.
inline std::vector<DataType> copyableTypes() {
  auto v = allTypes();
  v.push_back(DataType::BFLOAT16);
  for (DataType t : storageTypes()) v.push_back(t);
  return v;
}

} // namespace popart::shapeutil
