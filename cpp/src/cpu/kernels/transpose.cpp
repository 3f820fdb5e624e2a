// Transpose: y[i_0..i_n-1] = x at input axis perm[k] = i_k. Size-1 axes are
// dropped and axes adjacent in both orders merged; if the innermost axis stays
// innermost it is a copy of contiguous runs, otherwise cache-blocked 2-D tiles
// (4x4 SSE register transposes for 4-byte elements). Also runs TransposeGrad
// (a TransposeOp with the inverse permutation).
#include "ops/transpose.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>
#include <memory>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace popart::cpu {
namespace {

/// The transpose with size-1 axes removed and runs of consecutive axes merged.
struct SimplifiedTranspose {
  Shape in;                   // merged input shape
  std::vector<int64_t> perm;  // output axis k is merged input axis perm[k]
};

SimplifiedTranspose simplifyTranspose(const Shape &shape, const std::vector<int64_t> &perm) {
  std::vector<int64_t> renumber(shape.size(), -1);
  Shape s;
  for (size_t a = 0; a < shape.size(); ++a)
    if (shape[a] != 1) renumber[a] = static_cast<int64_t>(s.size()), s.push_back(shape[a]);
  std::vector<std::vector<int64_t>> groups;  // in output order, runs of consecutive input axes
  for (int64_t a : perm) {
    if (renumber[a] < 0) continue;
    if (!groups.empty() && groups.back().back() + 1 == renumber[a]) groups.back().push_back(renumber[a]);
    else groups.push_back({renumber[a]});
  }
  std::vector<size_t> byInput(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) byInput[g] = g;
  std::sort(byInput.begin(), byInput.end(), [&](size_t a, size_t b) { return groups[a][0] < groups[b][0]; });
  SimplifiedTranspose r;
  r.perm.resize(groups.size());
  for (size_t pos = 0; pos < byInput.size(); ++pos) {
    int64_t size = 1;
    for (int64_t a : groups[byInput[pos]]) size *= s[a];
    r.in.push_back(size);
    r.perm[byInput[pos]] = static_cast<int64_t>(pos);
  }
  return r;
}

/// One tile of the 2-D transpose d[v * dstV + u] = s[u * srcU + v].
template <class T>
void transposeTile(const T *s, T *d, int64_t srcU, int64_t dstV, int64_t u0, int64_t u1, int64_t v0, int64_t v1) {
  for (int64_t vi = v0; vi < v1; ++vi)
    for (int64_t ui = u0; ui < u1; ++ui) d[vi * dstV + ui] = s[ui * srcU + vi];
}

#if defined(__SSE2__)
/// 4-byte elements: 4x4 register transposes (bit-exact moves), scalar edges.
void transposeTile(const uint32_t *s, uint32_t *d, int64_t srcU, int64_t dstV, int64_t u0, int64_t u1, int64_t v0,
                   int64_t v1) {
  const int64_t v4 = v0 + (v1 - v0) / 4 * 4, u4 = u0 + (u1 - u0) / 4 * 4;
  for (int64_t vi = v0; vi < v4; vi += 4) {
    for (int64_t ui = u0; ui < u4; ui += 4) {
      auto in = [&](int64_t k) { return _mm_loadu_ps(reinterpret_cast<const float *>(s + (ui + k) * srcU + vi)); };
      __m128 r0 = in(0), r1 = in(1), r2 = in(2), r3 = in(3);
      _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
      _mm_storeu_ps(reinterpret_cast<float *>(d + vi * dstV + ui), r0);
      _mm_storeu_ps(reinterpret_cast<float *>(d + (vi + 1) * dstV + ui), r1);
      _mm_storeu_ps(reinterpret_cast<float *>(d + (vi + 2) * dstV + ui), r2);
      _mm_storeu_ps(reinterpret_cast<float *>(d + (vi + 3) * dstV + ui), r3);
    }
    transposeTile<uint32_t>(s, d, srcU, dstV, u4, u1, vi, vi + 4);
  }
  transposeTile<uint32_t>(s, d, srcU, dstV, u0, u1, v4, v1);
}
#endif

/// The general case: output axis n-1 reads input axis k != n-1, and input axis
/// n-1 lands on output axis j. Each work item copies T rows of output axis j
/// (all of axis n-1) for one outer index, tile by tile.
struct TiledTranspose {
  Shape outer;                          // output axes other than j and n-1
  std::vector<int64_t> outerSrc, outerDst;  // their strides (bytes)
  int64_t u = 0, v = 0;                 // sizes of output axes n-1 and j
  int64_t srcU = 0, dstV = 0;           // input stride of u, output stride of v (elements)
  int64_t tile = 0, outerCount = 1, vBlocks = 0, elem = 0;

  TiledTranspose(const SimplifiedTranspose &p, int64_t elemBytes) : elem(elemBytes) {
    const int64_t n = static_cast<int64_t>(p.perm.size());
    Shape out;
    for (int64_t a : p.perm) out.push_back(p.in[a]);
    auto inS = rowMajorStrides(p.in), outS = rowMajorStrides(out);
    const int64_t j = std::find(p.perm.begin(), p.perm.end(), n - 1) - p.perm.begin();
    for (int64_t k = 0; k < n - 1; ++k) {
      if (k == j) continue;
      outer.push_back(out[k]);
      outerSrc.push_back(inS[p.perm[k]] * elem);
      outerDst.push_back(outS[k] * elem);
      outerCount *= out[k];
    }
    u = out[n - 1], v = out[j];
    srcU = inS[p.perm[n - 1]], dstV = outS[j];
    tile = elem == 4 ? 32 : 16;
    vBlocks = (v + tile - 1) / tile;
  }

  template <class T> void block(const char *src, char *dst, int64_t item) const {
    int64_t o = item / vBlocks, v0 = (item % vBlocks) * tile, v1 = std::min(v, v0 + tile);
    for (int64_t k = static_cast<int64_t>(outer.size()) - 1; k >= 0; --k) {
      int64_t i = o % outer[k];
      o /= outer[k];
      src += i * outerSrc[k];
      dst += i * outerDst[k];
    }
    for (int64_t u0 = 0; u0 < u; u0 += tile)
      transposeTile(reinterpret_cast<const T *>(src), reinterpret_cast<T *>(dst), srcU, dstV, u0,
                    std::min(u, u0 + tile), v0, v1);
  }

  void run(const void *src, void *dst) const {
    const int64_t items = outerCount * vBlocks;
    const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, tile * u * elem));
    dispatchBytes(elem, [&](auto tag) {
      using T = decltype(tag);
      popx::Opx::parallelFor(items, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) block<T>(static_cast<const char *>(src), static_cast<char *>(dst), i);
      }, grain);
    });
  }
};

class TransposeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const int64_t elem = dataTypeSize(x.dtype());
    if (x.nelms() == 0) return;
    SimplifiedTranspose p = simplifyTranspose(x.shape(), getOp<TransposeOp>().perm());
    const int64_t n = static_cast<int64_t>(p.perm.size());
    if (n <= 1) {
      prog.add([x, y] { copyBytes(y.raw(), x.raw(), y.nbytes()); });
    } else if (p.perm[n - 1] == n - 1) {
      Shape out;
      std::vector<int64_t> src;
      auto inS = rowMajorStrides(p.in);
      for (int64_t a : p.perm) out.push_back(p.in[a]), src.push_back(inS[a]);
      auto copy = std::make_shared<StridedCopy>(out, src, rowMajorStrides(out), 0, 0, elem);
      prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
    } else {
      auto tiled = std::make_shared<TiledTranspose>(p, elem);
      prog.add([x, y, tiled] { tiled->run(x.raw(), y.raw()); });
    }
  }
};

} // namespace
static popx::OpxCreator<TransposeOpx> POPART_UNIQUE_NAME(transposeOpxCreator_)(
    std::vector<OperatorIdentifier>{onnxOp("Transpose"), internalOp("TransposeGrad")});
} // namespace popart::cpu
