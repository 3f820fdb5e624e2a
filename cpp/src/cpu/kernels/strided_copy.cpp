// Strided copies: merge dims that are contiguous in both source and
// destination, then copy inner runs (memcpy when both are unit-stride) over
// the outer index space, chunked across threads.
#include "strided_copy.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {
constexpr int64_t kCopyChunkBytes = 1 << 16;  // aim for >= 64 KiB per thread chunk
} // namespace

std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

void copyBytes(void *dst, const void *src, int64_t n) {
  if (dst == src || n <= 0) return;
  auto *d = static_cast<char *>(dst);
  const auto *s = static_cast<const char *>(src);
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); },
                         kCopyChunkBytes * 4);
}

void zeroBytes(void *dst, int64_t n) {
  if (n <= 0) return;
  auto *d = static_cast<char *>(dst);
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) { std::memset(d + b, 0, static_cast<size_t>(e - b)); },
                         kCopyChunkBytes * 4);
}

StridedCopy::StridedCopy(const Shape &shape, std::vector<int64_t> srcStrides, std::vector<int64_t> dstStrides,
                         int64_t srcOffset, int64_t dstOffset, int64_t elemBytes)
    : srcOff_(srcOffset * elemBytes), dstOff_(dstOffset * elemBytes), elem_(elemBytes) {
  Shape dims;
  std::vector<int64_t> ss, ds;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return;  // empty: outerCount_ stays 0
    if (shape[i] == 1) continue;
    if (!dims.empty() && ss.back() == srcStrides[i] * shape[i] && ds.back() == dstStrides[i] * shape[i]) {
      dims.back() *= shape[i];
      ss.back() = srcStrides[i];
      ds.back() = dstStrides[i];
      continue;
    }
    dims.push_back(shape[i]);
    ss.push_back(srcStrides[i]);
    ds.push_back(dstStrides[i]);
  }
  if (dims.empty()) dims = {1}, ss = {1}, ds = {1};
  inner_ = dims.back();
  innerSrc_ = ss.back() * elemBytes;
  innerDst_ = ds.back() * elemBytes;
  outer_.assign(dims.begin(), dims.end() - 1);
  if (outer_.size() > kMaxRank)
    throw error("strided copy over {} dims (after merging) is not supported; the limit is {}", dims.size(),
                kMaxRank + 1);
  outerCount_ = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) {
    outerCount_ *= dims[i];
    srcS_.push_back(ss[i] * elemBytes);
    dstS_.push_back(ds[i] * elemBytes);
  }
}

template <class U> void StridedCopy::innerStrided(const char *s, char *d) const {
  for (int64_t k = 0; k < inner_; ++k)
    *reinterpret_cast<U *>(d + k * innerDst_) = *reinterpret_cast<const U *>(s + k * innerSrc_);
}

void StridedCopy::inner(const char *s, char *d) const {
  if (innerSrc_ == elem_ && innerDst_ == elem_) {
    std::memcpy(d, s, static_cast<size_t>(inner_ * elem_));
    return;
  }
  switch (elem_) {
  case 1: return innerStrided<uint8_t>(s, d);
  case 2: return innerStrided<uint16_t>(s, d);
  case 4: return innerStrided<uint32_t>(s, d);
  case 8: return innerStrided<uint64_t>(s, d);
  default:
    for (int64_t k = 0; k < inner_; ++k)
      std::memcpy(d + k * innerDst_, s + k * innerSrc_, static_cast<size_t>(elem_));
  }
}

void StridedCopy::runRange(const char *src, char *dst, int64_t begin, int64_t end) const {
  const int64_t rank = static_cast<int64_t>(outer_.size());
  int64_t idx[kMaxRank] = {0};
  for (int64_t k = rank - 1, rem = begin; k >= 0; --k) idx[k] = rem % outer_[k], rem /= outer_[k];
  int64_t so = 0, dof = offsetsOf(begin, so);
  for (int64_t i = begin; i < end; ++i) {
    inner(src + so, dst + dof);
    for (int64_t k = rank - 1; k >= 0; --k) {  // odometer increment
      so += srcS_[k];
      dof += dstS_[k];
      if (++idx[k] < outer_[k]) break;
      so -= idx[k] * srcS_[k];
      dof -= idx[k] * dstS_[k];
      idx[k] = 0;
    }
  }
}

int64_t StridedCopy::offsetsOf(int64_t outerIndex, int64_t &srcOff) const {
  int64_t dstOff = dstOff_;
  srcOff = srcOff_;
  for (int64_t k = static_cast<int64_t>(outer_.size()) - 1; k >= 0; --k) {
    int64_t i = outerIndex % outer_[k];
    outerIndex /= outer_[k];
    srcOff += i * srcS_[k];
    dstOff += i * dstS_[k];
  }
  return dstOff;
}

void StridedCopy::run(const void *src, void *dst) const {
  if (outerCount_ == 0) return;
  const auto *s = static_cast<const char *>(src);
  auto *d = static_cast<char *>(dst);
  const int64_t runBytes = inner_ * elem_;
  const bool contiguous = innerSrc_ == elem_ && innerDst_ == elem_;
  if (!contiguous || runBytes < 2 * kCopyChunkBytes) {
    int64_t grain = std::max<int64_t>(1, kCopyChunkBytes / std::max<int64_t>(1, runBytes));
    popx::Opx::parallelFor(outerCount_, [&](int64_t b, int64_t e) { runRange(s, d, b, e); }, grain);
    return;
  }
  // Long contiguous runs: split each run into ~kCopyChunkBytes pieces as well.
  const int64_t pieces = runBytes / kCopyChunkBytes, pieceBytes = (runBytes + pieces - 1) / pieces;
  popx::Opx::parallelFor(outerCount_ * pieces, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      int64_t so = 0, dof = offsetsOf(item / pieces, so);
      int64_t from = (item % pieces) * pieceBytes, n = std::min(pieceBytes, runBytes - from);
      if (n > 0) std::memcpy(d + dof + from, s + so + from, static_cast<size_t>(n));
    }
  }, 1);
}

} // namespace popart::cpu
