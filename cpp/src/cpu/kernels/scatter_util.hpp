// Helpers shared by the element- and tuple-indexed gather/scatter kernels:
// index normalisation with range checks, and the scatter reductions.
#pragma once
#include "ops/indexing.hpp"
#include "dispatch.hpp"
#include <algorithm>

namespace popart::cpu {

/// indices[j] mapped to [0, dim) (negative counts from the end); throws when out of range.
template <class I> int64_t checkedIndex(I v, int64_t dim, int64_t j) {
  const int64_t i = static_cast<int64_t>(v);
  if (i < -dim || i >= dim)
    throw error("index {} (at flat position {}) out of range for an axis of size {}", i, j, dim);
  return i < 0 ? i + dim : i;
}

/// dst (op)= v for a scatter reduction; bool add/mul are or/and.
template <class T> void scatterCombine(ScatterReduction r, T &dst, T v) {
  using C = compute_t<T>;
  const C a = static_cast<C>(dst), b = static_cast<C>(v);
  switch (r) {
  case ScatterReduction::None: dst = v; return;
  case ScatterReduction::Add:
    if constexpr (std::is_same_v<T, bool>) dst = a || b;
    else dst = static_cast<T>(a + b);
    return;
  case ScatterReduction::Mul:
    if constexpr (std::is_same_v<T, bool>) dst = a && b;
    else dst = static_cast<T>(a * b);
    return;
  case ScatterReduction::Max: dst = static_cast<T>(std::max(a, b)); return;
  case ScatterReduction::Min: dst = static_cast<T>(std::min(a, b)); return;
  }
}

/// Calls f(I{}) with the C++ type of an INT32 or INT64 index tensor.
template <class F> void dispatchIndex(DataType t, F &&f) {
  if (t == DataType::INT32) f(int32_t{});
  else f(int64_t{});
}

} // namespace popart::cpu
