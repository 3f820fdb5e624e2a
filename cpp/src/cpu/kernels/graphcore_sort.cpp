// Sort / ReduceMedian: the input splits into lanes (one per kept position) of
// reduced elements, both given by element offsets computed at grow(); each lane
// copies (value, index) pairs into a scratch buffer made at grow() and sorts
// (Sort) or nth_element's (median), lanes in parallel. Ties order by index; NaN ranks
// above every number, and a lane holding NaN has the median NaN (numpy). The
// gradients write dy to the indexed positions of a zeroed dx. Bucketize: binary
// search per element; Histogram: binary search into the levels, counted per input
// slice in parallel.
#include "dispatch.hpp"
#include "ops/graphcore_sort.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cmath>

namespace popart::cpu {
namespace {

/// Offsets of the kept positions and of the reduced elements within one lane.
struct SortLanes {
  std::vector<int64_t> keep, red;
  SortLanes(const Shape &shape, const std::vector<int64_t> &axes) {
    const std::vector<int64_t> strides = rowMajorStrides(shape);
    keep = {0};
    red = {0};
    for (size_t a = 0; a < shape.size(); ++a) {
      auto &v = std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) != axes.end() ? red : keep;
      std::vector<int64_t> next;
      next.reserve(v.size() * static_cast<size_t>(shape[a]));
      for (int64_t base : v)
        for (int64_t i = 0; i < shape[a]; ++i) next.push_back(base + i * strides[a]);
      v = std::move(next);
    }
  }
  int64_t n() const { return static_cast<int64_t>(red.size()); }
  int64_t grain() const { return std::max<int64_t>(1, 2048 / std::max<int64_t>(1, n())); }
};

template <class T> struct Ranked {
  compute_t<T> v;
  int32_t i;
};

template <class T> void sortLanes(const SortLanes &L, std::vector<Ranked<T>> &scratch, const T *x, T *y, int32_t *idx,
                                  bool descending, bool median) {
  const int64_t n = L.n();
  popx::Opx::parallelFor(static_cast<int64_t>(L.keep.size()), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      Ranked<T> *p = scratch.data() + k * n;
      for (int64_t r = 0; r < n; ++r) p[r] = {compute_t<T>(x[L.keep[k] + L.red[r]]), static_cast<int32_t>(r)};
      // A strict weak order even with NaN (std::sort needs one): NaN ranks above every number, as in
      // np.sort and torch.sort; ties by index.
      auto less = [descending](const Ranked<T> &a, const Ranked<T> &b) {
        const bool na = a.v != a.v, nb = b.v != b.v;
        if (na != nb) return descending ? na : nb;
        if (!na && a.v != b.v) return descending ? a.v > b.v : a.v < b.v;
        return a.i < b.i;
      };
      if (median) {
        const int64_t m = (n - 1) / 2;
        const Ranked<T> *nan = std::find_if(p, p + n, [](const Ranked<T> &r) { return r.v != r.v; });
        if (nan != p + n) {  // the median of a lane holding NaN is NaN (numpy, torch): the first one
          y[k] = static_cast<T>(nan->v);
          idx[k] = nan->i;
          continue;
        }
        std::nth_element(p, p + m, p + n, less);
        y[k] = static_cast<T>(p[m].v);
        idx[k] = p[m].i;
        continue;
      }
      std::sort(p, p + n, less);
      for (int64_t r = 0; r < n; ++r) {
        y[L.keep[k] + L.red[r]] = static_cast<T>(p[r].v);
        idx[L.keep[k] + L.red[r]] = p[r].i;
      }
    }
  }, L.grain());
}

class SortOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    // without the optional indices output, the indices go to scratch memory
    popx::TensorView idx = hasOutput(1) ? getOutTensor(1) : createTensor(TensorInfo(DataType::INT32, y.shape()));
    const bool median = op_p->opid.type == "ReduceMedian";
    auto lanes = std::make_shared<SortLanes>(x.shape(), median ? getOp<ReduceMedianOp>().axes()
                                                           : std::vector<int64_t>{getOp<SortOp>().axis()});
    const bool descending = op_p->attr<Attributes::Int>("descending", 0) != 0;
    if (x.nelms() == 0) return;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto scratch = std::make_shared<std::vector<Ranked<T>>>(static_cast<size_t>(x.nelms()));
      prog.add([=] { sortLanes(*lanes, *scratch, x.data<T>(), y.data<T>(), idx.data<int32_t>(), descending, median); });
    });
  }
};

template <class T> void indexScatter(const SortLanes &L, const T *dy, const int32_t *idx, T *dx, int64_t dxBytes,
                                     bool median) {
  zeroBytes(dx, dxBytes);
  const int64_t n = L.n();
  popx::Opx::parallelFor(static_cast<int64_t>(L.keep.size()), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      if (median) {
        dx[L.keep[k] + L.red[idx[k]]] = dy[k];
        continue;
      }
      for (int64_t r = 0; r < n; ++r) {
        const int64_t at = L.keep[k] + L.red[r];
        dx[L.keep[k] + L.red[idx[at]]] = dy[at];
      }
    }
  }, L.grain());
}

class IndexScatterGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView dy = getInTensor(0), idx = getInTensor(1), dx = getOutTensor(0);
    auto lanes = std::make_shared<SortLanes>(dx.shape(), getOp<IndexScatterGradOp>().axes());
    const bool median = op_p->opid.type == "ReduceMedianGrad";
    dispatchFloat(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] { indexScatter(*lanes, dy.data<T>(), idx.data<int32_t>(), dx.data<T>(), dx.nbytes(), median); });
    });
  }
};

class BucketizeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), bnd = getInTensor(1), y = getOutTensor(0);
    const bool right = op_p->attr<Attributes::Int>("right", 0) != 0;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      prog.add([=] {
        const T *b = bnd.data<T>();
        const int64_t nb = bnd.nelms();
        const T *xs = x.data<T>();
        int32_t *out = y.data<int32_t>();
        popx::Opx::parallelFor(x.nelms(), [&](int64_t lo, int64_t hi) {
          for (int64_t i = lo; i < hi; ++i) {
            const C v = xs[i];
            auto cmp = [](C a, const T &e) { return a < C(e); };
            auto cmpLeft = [](const T &e, C a) { return C(e) < a; };
            out[i] = static_cast<int32_t>(right ? std::upper_bound(b, b + nb, v, cmp) - b
                                                : std::lower_bound(b, b + nb, v, cmpLeft) - b);
          }
        });
      });
    });
  }
};

/// Histogram counts over kHistogramBlocks fixed slices of the input, counted in
/// parallel into per-slice rows of a table made at grow(), then summed.
constexpr int64_t kHistogramBlocks = 16;

template <class T> void histogram(const T *xs, int64_t n, const std::vector<float> &levels, bool absolute,
                                  std::vector<uint32_t> &table, uint32_t *counts) {
  const int64_t bins = static_cast<int64_t>(levels.size()) + 1;
  std::fill(table.begin(), table.end(), 0u);
  const float *lb = levels.data(), *le = lb + levels.size();
  popx::Opx::parallelFor(kHistogramBlocks, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      uint32_t *row = table.data() + blk * bins;
      for (int64_t i = n * blk / kHistogramBlocks, end = n * (blk + 1) / kHistogramBlocks; i < end; ++i) {
        const double v = absolute ? std::fabs(double(compute_t<T>(xs[i]))) : double(compute_t<T>(xs[i]));
        ++row[std::upper_bound(lb, le, v, [](double a, float l) { return a < double(l); }) - lb];
      }
    }
  }, 1);
  for (int64_t k = 0; k < bins; ++k) {
    uint32_t c = 0;
    for (int64_t blk = 0; blk < kHistogramBlocks; ++blk) c += table[blk * bins + k];
    counts[k] = c;
  }
}

class HistogramOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    auto levels = std::make_shared<std::vector<float>>(op_p->attr<Attributes::Floats>("levels"));
    auto table = std::make_shared<std::vector<uint32_t>>(static_cast<size_t>(kHistogramBlocks * y.nelms()));
    const bool absolute = op_p->attr<Attributes::Int>("absoluteOfInput", 0) != 0;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] { histogram(x.data<T>(), x.nelms(), *levels, absolute, *table, y.data<uint32_t>()); });
    });
  }
};

} // namespace
static popx::OpxCreator<SortOpx> POPART_UNIQUE_NAME(gcSortOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("Sort"), graphcoreOp("ReduceMedian")});
static popx::OpxCreator<IndexScatterGradOpx> POPART_UNIQUE_NAME(gcIndexScatterOpxCreator_)(
    std::vector<OperatorIdentifier>{internalOp("SortGrad"), internalOp("ReduceMedianGrad")});
static popx::OpxCreator<BucketizeOpx> POPART_UNIQUE_NAME(gcBucketizeOpxCreator_)(graphcoreOp("Bucketize"));
static popx::OpxCreator<HistogramOpx> POPART_UNIQUE_NAME(gcHistogramOpxCreator_)(graphcoreOp("Histogram"));
} // namespace popart::cpu
