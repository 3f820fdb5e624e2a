// Byte-moving helpers shared by the data-movement kernels (views, Transpose,
// Concat, Split, Slice, Gather): element-size dispatch, parallel memcpy/memset and an
// N-d strided copy whose contiguous inner runs become memcpy calls.
#pragma once
#include "popart/error.hpp"
#include "popart/names.hpp"
#include <cstdint>
#include <vector>

namespace popart::cpu {

/// Calls f(U{}) with an unsigned type of `bytes` bytes (element copies by size).
template <class F> decltype(auto) dispatchBytes(int64_t bytes, F &&f) {
  switch (bytes) {
  case 1: return f(uint8_t{});
  case 2: return f(uint16_t{});
  case 4: return f(uint32_t{});
  case 8: return f(uint64_t{});
  default: throw error("element size {} bytes is not supported here", bytes);
  }
}

/// Row-major strides (in elements) of `shape`.
std::vector<int64_t> rowMajorStrides(const Shape &shape);

/// memcpy of `n` bytes split over threads when large; no-op when dst == src.
void copyBytes(void *dst, const void *src, int64_t n);

/// memset(dst, 0, n) split over threads when large (gradients scattered into zeros).
void zeroBytes(void *dst, int64_t n);

/// dst[off_d + sum i_k*dstStrides_k] = src[off_s + sum i_k*srcStrides_k] for
/// every index i of `shape`. Strides/offsets in elements (may be negative).
/// Built once at grow() time (dims merged, size-1 dims dropped); run() is
/// allocation-free and parallel over the outer dims.
class StridedCopy {
public:
  StridedCopy() = default;
  StridedCopy(const Shape &shape, std::vector<int64_t> srcStrides, std::vector<int64_t> dstStrides,
              int64_t srcOffset, int64_t dstOffset, int64_t elemBytes);
  void run(const void *src, void *dst) const;

private:
  void runRange(const char *src, char *dst, int64_t begin, int64_t end) const;
  /// Byte offsets (dst returned, src through `srcOff`) of an outer index.
  int64_t offsetsOf(int64_t outerIndex, int64_t &srcOff) const;
  void inner(const char *s, char *d) const;
  template <class U> void innerStrided(const char *s, char *d) const;
  static constexpr size_t kMaxRank = 32;

  Shape outer_;                     // outer dims (the inner run excluded)
  std::vector<int64_t> srcS_, dstS_;  // outer strides in bytes
  int64_t inner_ = 0, innerSrc_ = 0, innerDst_ = 0;  // inner run length (elements) and byte strides
  int64_t srcOff_ = 0, dstOff_ = 0, elem_ = 0, outerCount_ = 0;
};

} // namespace popart::cpu
