// GatherND / ScatterND: each index tuple (the last axis of indices) addresses a
// contiguous slice of x of `slice` elements at batch*batchStride + sum_j i_j*stride_j.
// Gathers copy slices in parallel; scatters apply them serially (last duplicate wins).
// GatherNDGrad scatter-adds dy slices into zeros, in parallel over column blocks of
// the slice; ScatterNDGrad is scatterGrad over the (update, position) pairs.
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "scatter_util.hpp"
#include "strided_copy.hpp"
#include <cstring>
#include <memory>

namespace popart::cpu {
namespace {

struct GatherNDPlan {
  Shape dims;                   // the k indexed data dims
  std::vector<int64_t> strides; // their strides (elements)
  int64_t tuples = 0, k = 0, slice = 1, perBatch = 1, batchStride = 0;

  GatherNDPlan(const Shape &data, const Shape &ind, int64_t b) : k(ind.back()) {
    const auto ds = rowMajorStrides(data);
    dims.assign(data.begin() + b, data.begin() + b + k);
    strides.assign(ds.begin() + b, ds.begin() + b + k);
    tuples = shapeutil::product(ind, 0, ind.size() - 1);
    slice = shapeutil::product(data, b + k, data.size());
    perBatch = shapeutil::product(ind, b, ind.size() - 1);
    batchStride = shapeutil::product(data, b, data.size());
  }
  template <class I> int64_t offset(const I *ind, int64_t t) const {
    int64_t off = (t / perBatch) * batchStride;
    for (int64_t j = 0; j < k; ++j) off += checkedIndex(ind[t * k + j], dims[j], t * k + j) * strides[j];
    return off;
  }
  template <class I, class U> void gather(const I *ind, const U *x, U *y) const {
    popx::Opx::parallelFor(tuples, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t)
        std::memcpy(y + t * slice, x + offset(ind, t), static_cast<size_t>(slice) * sizeof(U));
    }, std::max<int64_t>(1, 4096 / slice));
  }
  /// f(u, p) for every update element u (tuples backwards when `reverse`) and its data position p.
  template <class I, class F> void forEachPair(const I *ind, bool reverse, F &&f) const {
    for (int64_t q = 0; q < tuples; ++q) {
      const int64_t t = reverse ? tuples - 1 - q : q, off = offset(ind, t);
      for (int64_t j = 0; j < slice; ++j) f(t * slice + j, off + j);
    }
  }
  /// dx = 0, then dx[slice of tuple t] += dy[t, :]; no two work items share a column.
  template <class I, class T> void scatterAdd(const I *ind, const T *dy, T *dx, int64_t n) const {
    zeroBytes(dx, n * static_cast<int64_t>(sizeof(T)));
    const int64_t cols = std::max<int64_t>(256, (slice + 15) / 16), blocks = (slice + cols - 1) / cols;
    popx::Opx::parallelFor(blocks, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        const int64_t c0 = blk * cols, c1 = std::min(slice, c0 + cols);
        for (int64_t t = 0; t < tuples; ++t) {
          T *d = dx + offset(ind, t);
          const T *g = dy + t * slice;
          for (int64_t c = c0; c < c1; ++c) d[c] = static_cast<T>(compute_t<T>(d[c]) + compute_t<T>(g[c]));
        }
      }
    }, 1);
  }
  template <class I, class T> void scatter(const I *ind, const T *upd, T *y, ScatterReduction red) const {
    for (int64_t t = 0; t < tuples; ++t) {
      T *dst = y + offset(ind, t);
      const T *src = upd + t * slice;
      if (red == ScatterReduction::None) std::memcpy(dst, src, static_cast<size_t>(slice) * sizeof(T));
      else
        for (int64_t j = 0; j < slice; ++j) scatterCombine(red, dst[j], src[j]);
    }
  }
};

class GatherNDOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    growPlannedGather(*this, prog, std::make_shared<const GatherNDPlan>(inShape(0), inShape(1),
                                                                        getOp<GatherNDOp>().batchDims()));
  }
};

class ScatterNDOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), ind = getInTensor(1), upd = getInTensor(2), y = getOutTensor(0);
    const ScatterReduction red = getOp<ScatterNDOp>().reduction();
    auto plan = std::make_shared<const GatherNDPlan>(x.shape(), ind.shape(), 0);
    auto add = [&](auto itag, auto tag) {
      using I = decltype(itag);
      using T = decltype(tag);
      prog.add([plan, x, ind, upd, y, red] {
        copyBytes(y.raw(), x.raw(), x.nbytes());
        plan->scatter(ind.data<I>(), static_cast<const T *>(upd.raw()), static_cast<T *>(y.raw()), red);
      });
    };
    dispatchIndex(ind.dtype(), [&](auto itag) {
      if (red == ScatterReduction::None) dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) { add(itag, tag); });
      else dispatchAll(x.dtype(), [&](auto tag) { add(itag, tag); });
    });
  }
};

class GatherNDGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView dy = getInTensor(0), ind = getInTensor(1), dx = getOutTensor(0);
    if (dx.nelms() == 0) return;
    auto plan = std::make_shared<const GatherNDPlan>(dx.shape(), ind.shape(), getOp<GatherNDGradOp>().batchDims());
    dispatchIndex(ind.dtype(), [&](auto itag) {
      using I = decltype(itag);
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        prog.add([plan, dy, ind, dx] { plan->scatterAdd(ind.data<I>(), dy.data<T>(), dx.data<T>(), dx.nelms()); });
      });
    });
  }
};

class ScatterNDGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto plan = std::make_shared<const GatherNDPlan>(outShape(0), inShape(1), 0);
    growScatterGrad(*this, prog, getOp<ScatterGradOp>().reduction(), [plan](const auto *ind) {
      return [plan, ind](bool reverse, auto &&f) { plan->forEachPair(ind, reverse, f); };
    });
  }
};

} // namespace
static popx::OpxCreator<GatherNDGradOpx> POPART_UNIQUE_NAME(gatherNDGradOpxCreator_)(internalOp("GatherNDGrad"));
static popx::OpxCreator<ScatterNDGradOpx> POPART_UNIQUE_NAME(scatterNDGradOpxCreator_)(internalOp("ScatterNDGrad"));
static popx::OpxCreator<GatherNDOpx> POPART_UNIQUE_NAME(gatherNDOpxCreator_)(onnxOp("GatherND"));
static popx::OpxCreator<ScatterNDOpx> POPART_UNIQUE_NAME(scatterNDOpxCreator_)(onnxOp("ScatterND"));
} // namespace popart::cpu
