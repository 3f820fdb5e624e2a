// GatherElements / ScatterElements / Scatter over the rows (last axis) of the
// indices tensor: element j of row r addresses x at base(r) + j*s_last (unless
// the last axis is `axis`) + index*s_axis, with base(r) skipping `axis`.
// Scatters run serially in row-major order, so the last duplicate wins.
// GatherElementsGrad (also TopK's gradient) scatter-adds dy into zeros, in parallel
// over the lanes that cannot collide; ScatterElementsGrad is scatterGrad over the pairs.
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "scatter_util.hpp"
#include "strided_copy.hpp"
#include <cstring>
#include <memory>

namespace popart::cpu {
namespace {

struct ScatterElementsPlan {
  Shape idx;                       // indices shape
  std::vector<int64_t> strides;    // data strides
  int64_t axis = 0, dim = 0, rows = 1, rowLen = 1;

  ScatterElementsPlan(const Shape &data, Shape indices, int64_t ax)
      : idx(std::move(indices)), strides(rowMajorStrides(data)), axis(ax), dim(data[ax]) {
    rowLen = idx.back();
    rows = shapeutil::product(idx, 0, idx.size() - 1);
  }
  /// Data offset of row r's first element, with the `axis` coordinate left out.
  int64_t base(int64_t r) const {
    int64_t off = 0;
    for (int64_t a = static_cast<int64_t>(idx.size()) - 2; a >= 0; --a) {
      if (a != axis) off += (r % idx[a]) * strides[a];
      r /= idx[a];
    }
    return off;
  }
  int64_t step() const { return axis == static_cast<int64_t>(idx.size()) - 1 ? 0 : strides.back(); }

  template <class I, class U> void gather(const I *ind, const U *x, U *y) const {
    popx::Opx::parallelFor(rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t off = base(r), st = step();
        for (int64_t j = 0; j < rowLen; ++j) {
          const int64_t f = r * rowLen + j;
          y[f] = x[off + j * st + checkedIndex(ind[f], dim, f) * strides[axis]];
        }
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowLen)));
  }

  /// f(u, p) for every element u of indices (row-major; backwards when `reverse`)
  /// and the data position p it addresses.
  template <class I, class F> void forEachPair(const I *ind, bool reverse, F &&f) const {
    const int64_t st = step();
    for (int64_t q = 0; q < rows; ++q) {
      const int64_t r = reverse ? rows - 1 - q : q, off = base(r);
      for (int64_t k = 0; k < rowLen; ++k) {
        const int64_t u = r * rowLen + (reverse ? rowLen - 1 - k : k);
        f(u, off + (u - r * rowLen) * st + checkedIndex(ind[u], dim, u) * strides[axis]);
      }
    }
  }

  template <class I, class T> void scatter(const I *ind, const T *upd, T *y, ScatterReduction red) const {
    forEachPair(ind, false, [&](int64_t u, int64_t p) { scatterCombine(red, y[p], upd[u]); });
  }

  /// dx = 0, then dx[position of u] += dy[u]. Rows differing only in their `axis`
  /// coordinate may collide, so each work item takes all of them in order.
  template <class I, class T> void scatterAdd(const I *ind, const T *dy, T *dx, int64_t n) const {
    zeroBytes(dx, n * static_cast<int64_t>(sizeof(T)));
    const int64_t last = static_cast<int64_t>(idx.size()) - 1;
    const int64_t along = axis == last ? 1 : idx[axis];
    const int64_t after = axis == last ? 1 : shapeutil::product(idx, axis + 1, last);
    if (rows == 0 || along == 0) return;
    const int64_t st = step();
    popx::Opx::parallelFor(rows / along, [&](int64_t b, int64_t e) {
      for (int64_t g = b; g < e; ++g)
        for (int64_t a = 0; a < along; ++a) {
          const int64_t r = ((g / after) * along + a) * after + g % after, off = base(r);
          for (int64_t j = 0; j < rowLen; ++j) {
            const int64_t u = r * rowLen + j;
            T &d = dx[off + j * st + checkedIndex(ind[u], dim, u) * strides[axis]];
            d = static_cast<T>(compute_t<T>(d) + compute_t<T>(dy[u]));
          }
        }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, along * rowLen)));
  }
};

class GatherElementsOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    growPlannedGather(*this, prog, std::make_shared<const ScatterElementsPlan>(inShape(0), inShape(1),
                                                                               getOp<GatherElementsOp>().axis()));
  }
};

class ScatterElementsOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ScatterElementsOp>();
    popx::TensorView x = getInTensor(0), ind = getInTensor(1), upd = getInTensor(2), y = getOutTensor(0);
    const ScatterReduction red = op.reduction();
    auto plan = std::make_shared<const ScatterElementsPlan>(x.shape(), ind.shape(), op.axis());
    const bool empty = ind.nelms() == 0;
    auto add = [&](auto itag, auto tag) {
      using I = decltype(itag);
      using T = decltype(tag);
      prog.add([plan, x, ind, upd, y, red, empty] {
        copyBytes(y.raw(), x.raw(), x.nbytes());
        if (!empty)
          plan->scatter(ind.data<I>(), static_cast<const T *>(upd.raw()), static_cast<T *>(y.raw()), red);
      });
    };
    dispatchIndex(ind.dtype(), [&](auto itag) {
      if (red == ScatterReduction::None)  // plain stores: any element type, by size
        dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) { add(itag, tag); });
      else
        dispatchAll(x.dtype(), [&](auto tag) { add(itag, tag); });
    });
  }
};

/// Inputs dY, indices; the axis comes from the op (GatherElements or TopK).
class GatherElementsGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView dy = getInTensor(0), ind = getInTensor(1), dx = getOutTensor(0);
    if (dx.nelms() == 0) return;
    auto plan = std::make_shared<const ScatterElementsPlan>(dx.shape(), ind.shape(),
                                                            getOp<GatherElementsGradOp>().axis());
    dispatchIndex(ind.dtype(), [&](auto itag) {
      using I = decltype(itag);
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        prog.add([plan, dy, ind, dx] { plan->scatterAdd(ind.data<I>(), dy.data<T>(), dx.data<T>(), dx.nelms()); });
      });
    });
  }
};

class ScatterElementsGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ScatterGradOp>();
    auto plan = std::make_shared<const ScatterElementsPlan>(outShape(0), inShape(1), op.axis());
    growScatterGrad(*this, prog, op.reduction(), [plan](const auto *ind) {
      return [plan, ind](bool reverse, auto &&f) { plan->forEachPair(ind, reverse, f); };
    });
  }
};

} // namespace
static popx::OpxCreator<GatherElementsGradOpx> POPART_UNIQUE_NAME(gatherElementsGradOpxCreator_)(
    internalOp("GatherElementsGrad"));
static popx::OpxCreator<ScatterElementsGradOpx> POPART_UNIQUE_NAME(scatterElementsGradOpxCreator_)(
    internalOp("ScatterElementsGrad"));
static popx::OpxCreator<GatherElementsOpx> POPART_UNIQUE_NAME(gatherElementsOpxCreator_)(onnxOp("GatherElements"));
static popx::OpxCreator<ScatterElementsOpx> POPART_UNIQUE_NAME(scatterElementsOpxCreator_)(
    std::vector<OperatorIdentifier>{onnxOp("ScatterElements"), onnxOp("Scatter")});
} // namespace popart::cpu
