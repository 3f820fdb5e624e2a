// GatherND / ScatterND: each index tuple (the last axis of indices) addresses a
// contiguous slice of x of `slice` elements at batch*batchStride + sum_j i_j*stride_j.
// Gathers copy slices in parallel; scatters apply them serially (last duplicate wins).
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
    popx::TensorView x = getInTensor(0), ind = getInTensor(1), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    auto plan = std::make_shared<const GatherNDPlan>(x.shape(), ind.shape(), getOp<GatherNDOp>().batchDims());
    dispatchIndex(ind.dtype(), [&](auto itag) {
      using I = decltype(itag);
      dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
        using U = decltype(tag);
        prog.add([plan, x, ind, y] {
          plan->gather(ind.data<I>(), static_cast<const U *>(x.raw()), static_cast<U *>(y.raw()));
        });
      });
    });
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

} // namespace
static popx::OpxCreator<GatherNDOpx> POPART_UNIQUE_NAME(gatherNDOpxCreator_)(onnxOp("GatherND"));
static popx::OpxCreator<ScatterNDOpx> POPART_UNIQUE_NAME(scatterNDOpxCreator_)(onnxOp("ScatterND"));
} // namespace popart::cpu
