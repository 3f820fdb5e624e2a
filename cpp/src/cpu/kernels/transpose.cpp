// Transpose: y[i_0..i_n-1] = x at input axis perm[k] = i_k. Size-1 axes are
// dropped and axes adjacent in both orders merged; if the innermost axis stays
// innermost it is a copy of contiguous runs, otherwise cache-blocked 2-D tiles.
#include "ops/transpose.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>
#include <memory>

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
    tile = std::max<int64_t>(8, 64 / elem);
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
    const T *s = reinterpret_cast<const T *>(src);
    T *d = reinterpret_cast<T *>(dst);
    for (int64_t u0 = 0; u0 < u; u0 += tile) {
      const int64_t u1 = std::min(u, u0 + tile);
      for (int64_t vi = v0; vi < v1; ++vi)
        for (int64_t ui = u0; ui < u1; ++ui) d[vi * dstV + ui] = s[ui * srcU + vi];
    }
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
static popx::OpxCreator<TransposeOpx> POPART_UNIQUE_NAME(transposeOpxCreator_)(onnxOp("Transpose"));
} // namespace popart::cpu
