// Gather: y[o, j, :] = x[o, k_j, :] over x viewed as [outer, d, inner] and y as
// [outer, n_indices, inner]; k_j = indices[j] (+ d when negative). Indices are
// checked first, then the rows are copied in parallel. GatherGrad: dx = 0, then
// dx[o, k_j, :] += dy[o, j, :], parallel over (o, column block) so no two
// threads add to the same element; float16 adds in float, rounding per add.
#include "dispatch.hpp"
#include "ops/gather.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "ops/shape_util.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

struct GatherPlan {
  int64_t outer, dim, inner, elem, nIdx;

  template <class I> void check(const I *idx) const {
    for (int64_t j = 0; j < nIdx; ++j)
      if (idx[j] < -dim || idx[j] >= dim)
        throw error("index {} (at flat position {}) out of range for an axis of size {}", idx[j], j, dim);
  }

  /// Items [b, e) of the [outer, nIdx] output rows; each row is `inner` elements.
  template <class I, class U> void rows(const I *idx, const U *x, U *y, int64_t b, int64_t e) const {
    for (int64_t o = b / nIdx, j0 = b % nIdx, item = b; item < e; ++o, j0 = 0) {
      const int64_t j1 = std::min(nIdx, j0 + e - item);
      const U *xo = x + o * dim * inner;
      U *yo = y + o * nIdx * inner;
      if (inner == 1) {
        for (int64_t j = j0; j < j1; ++j) yo[j] = xo[idx[j] < 0 ? idx[j] + dim : idx[j]];
      } else {
        for (int64_t j = j0; j < j1; ++j)
          std::memcpy(yo + j * inner, xo + (idx[j] < 0 ? idx[j] + dim : idx[j]) * inner,
                      static_cast<size_t>(inner) * sizeof(U));
      }
      item += j1 - j0;
    }
  }

  /// dx[o, k_j, c0:c1] += dy[o, j, c0:c1] for every j (one work item of the gradient).
  template <class I, class T>
  void scatterAdd(const I *idx, const T *dy, T *dx, int64_t o, int64_t c0, int64_t c1) const {
    T *xo = dx + o * dim * inner;
    const T *yo = dy + o * nIdx * inner;
    for (int64_t j = 0; j < nIdx; ++j) {
      T *xr = xo + (idx[j] < 0 ? idx[j] + dim : idx[j]) * inner;
      const T *yr = yo + j * inner;
      for (int64_t c = c0; c < c1; ++c) xr[c] = static_cast<T>(compute_t<T>(xr[c]) + compute_t<T>(yr[c]));
    }
  }

  template <class I, class T> void runGrad(const I *idx, const T *dy, T *dx) const {
    check(idx);
    zeroBytes(dx, outer * dim * inner * elem);
    // column blocks long enough to vectorise, short enough to make ~8 work items
    const int64_t cols = std::clamp<int64_t>((outer * inner + 127) / 128 * 16, 64, 512);
    const int64_t blocks = (inner + cols - 1) / cols;
    const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, nIdx * std::min(inner, cols)));
    popx::Opx::parallelFor(outer * blocks, [&](int64_t b, int64_t e) {
      for (int64_t item = b; item < e; ++item) {
        const int64_t o = item / blocks, c0 = item % blocks * cols;
        scatterAdd(idx, dy, dx, o, c0, std::min(inner, c0 + cols));
      }
    }, grain);
  }

  template <class I> void run(const I *idx, const void *x, void *y) const {
    check(idx);
    const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, inner * elem));
    dispatchBytes(elem, [&](auto tag) {
      using U = decltype(tag);
      popx::Opx::parallelFor(outer * nIdx, [&](int64_t b, int64_t e) {
        rows(idx, static_cast<const U *>(x), static_cast<U *>(y), b, e);
      }, grain);
    });
  }
};

class GatherOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t axis = getOp<GatherOp>().axis();
    popx::TensorView x = getInTensor(0), idx = getInTensor(1), y = getOutTensor(0);
    const Shape &s = x.shape();
    GatherPlan p{shapeutil::product(s, 0, axis), s[axis], shapeutil::product(s, axis + 1, s.size()),
                 dataTypeSize(x.dtype()), idx.nelms()};
    if (y.nelms() == 0) return;
    if (idx.dtype() == DataType::INT32)
      prog.add([p, x, idx, y] { p.run(idx.data<int32_t>(), x.raw(), y.raw()); });
    else
      prog.add([p, x, idx, y] { p.run(idx.data<int64_t>(), x.raw(), y.raw()); });
  }
};

class GatherGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t axis = getOp<GatherGradOp>().axis();
    popx::TensorView dy = getInTensor(0), idx = getInTensor(1), dx = getOutTensor(0);
    const Shape &s = dx.shape();
    GatherPlan p{shapeutil::product(s, 0, axis), s[axis], shapeutil::product(s, axis + 1, s.size()),
                 dataTypeSize(dx.dtype()), idx.nelms()};
    if (dx.nelms() == 0) return;
    dispatchFloat(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (idx.dtype() == DataType::INT32)
        prog.add([p, dy, idx, dx] { p.runGrad(idx.data<int32_t>(), dy.data<T>(), dx.data<T>()); });
      else
        prog.add([p, dy, idx, dx] { p.runGrad(idx.data<int64_t>(), dy.data<T>(), dx.data<T>()); });
    });
  }
};

} // namespace
static popx::OpxCreator<GatherOpx> POPART_UNIQUE_NAME(gatherOpxCreator_)(onnxOp("Gather"));
static popx::OpxCreator<GatherGradOpx> POPART_UNIQUE_NAME(gatherGradOpxCreator_)(internalOp("GatherGrad"));
} // namespace popart::cpu
