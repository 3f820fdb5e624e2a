// Einsum: y[o] = sum_c prod_k x_k[offset_k(o, c)], with per-label strides for each
// input (repeated labels add their strides: diagonals; broadcast dims stride 0).
// Output elements are split across threads; the contracted labels are an odometer.
// EinsumGrad runs the same plan over (dY, other inputs) onto X_k's labels: a repeated output
// label writes the diagonal (the rest zero-filled), a size-1 output dim of a larger label sums it.
#include "ops/einsum.hpp"
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "dispatch.hpp"
#include "strided_copy.hpp"
#include <memory>

namespace popart::cpu {
namespace {

struct EinsumPlan {
  std::vector<int64_t> outSizes, sumSizes;                // per output / contracted label
  std::vector<std::vector<int64_t>> outStrides, sumStrides; // [input][label]
  std::vector<int64_t> yStrides;                          // per output label (repeats add up)
  int64_t outCount = 1, sumCount = 1;
  bool zeroFill = false;                                  // the output has off-diagonal elements

  /// Inputs with `labels` and `shapes`; output dims labelled `outLabels` with shape `outShape`.
  EinsumPlan(const std::vector<std::vector<int>> &labels, const std::vector<Shape> &shapes,
             const std::vector<int> &outLabels, const Shape &outShape, const std::vector<int64_t> &sizes) {
    std::vector<std::vector<int64_t>> strides(labels.size(), std::vector<int64_t>(sizes.size(), 0));
    std::vector<bool> used(sizes.size(), false);
    for (size_t k = 0; k < labels.size(); ++k) {
      const Shape &s = shapes[k];
      const auto rm = rowMajorStrides(s);
      for (size_t d = 0; d < s.size(); ++d) {
        used[labels[k][d]] = true;
        if (s[d] != 1) strides[k][labels[k][d]] += rm[d];
      }
    }
    std::vector<int> outOrder;  // distinct output labels, first occurrence first
    std::vector<int64_t> yStride(sizes.size(), 0);
    const auto yrm = rowMajorStrides(outShape);
    for (size_t d = 0; d < outLabels.size(); ++d) {
      const int l = outLabels[d];
      if (outShape[d] == 1 && sizes[l] != 1) continue;  // broadcast in the output: summed
      if (std::find(outOrder.begin(), outOrder.end(), l) == outOrder.end()) outOrder.push_back(l);
      else zeroFill = true;
      yStride[l] += yrm[d];
    }
    std::vector<bool> isOut(sizes.size(), false);
    for (int l : outOrder) isOut[l] = true;
    outStrides.resize(labels.size()), sumStrides.resize(labels.size());
    for (int l : outOrder) {
      outSizes.push_back(sizes[l]);
      yStrides.push_back(yStride[l]);
      for (size_t k = 0; k < labels.size(); ++k) outStrides[k].push_back(strides[k][l]);
    }
    for (size_t l = 0; l < sizes.size(); ++l)
      if (used[l] && !isOut[l]) {
        sumSizes.push_back(sizes[l]);
        for (size_t k = 0; k < labels.size(); ++k) sumStrides[k].push_back(strides[k][l]);
      }
    outCount = shapeutil::product(outSizes, 0, outSizes.size());
    sumCount = shapeutil::product(sumSizes, 0, sumSizes.size());
  }

  /// sum_t prod_k x_k[off_k + t * stride_k] for t < len.
  template <class A, class T>
  static A innerSum(const std::vector<const T *> &x, const std::vector<int64_t> &off, int64_t len,
                    const std::vector<int64_t> &stride) {
    A acc = 0;
    if (x.size() == 2) {
      const T *a = x[0] + off[0], *b = x[1] + off[1];
      const int64_t sa = stride[0], sb = stride[1];
      for (int64_t t = 0; t < len; ++t) acc += static_cast<A>(a[t * sa]) * static_cast<A>(b[t * sb]);
      return acc;
    }
    for (int64_t t = 0; t < len; ++t) {
      A p = static_cast<A>(x[0][off[0] + t * stride[0]]);
      for (size_t k = 1; k < x.size(); ++k) p *= static_cast<A>(x[k][off[k] + t * stride[k]]);
      acc += p;
    }
    return acc;
  }

  template <class T> void run(const std::vector<const T *> &x, T *y, int64_t yCount) const {
    if (zeroFill) std::fill(y, y + yCount, T(0));
    using A = std::conditional_t<std::is_floating_point_v<T>, T,
                                 std::conditional_t<std::is_same_v<T, float16_t>, float, int64_t>>;
    const size_t n = x.size(), ns = std::max<size_t>(1, sumSizes.size());
    const int64_t inner = sumSizes.empty() ? 1 : sumSizes.back();  // the last contracted label: a plain loop
    std::vector<int64_t> innerStride(n, 0);
    for (size_t k = 0; k < n && !sumSizes.empty(); ++k) innerStride[k] = sumStrides[k].back();
    popx::Opx::parallelFor(outCount, [&](int64_t b, int64_t e) {
      std::vector<int64_t> base(n), off(n), ctr(ns);
      for (int64_t o = b; o < e; ++o) {
        std::fill(base.begin(), base.end(), 0);
        int64_t yo = 0;
        for (int64_t d = static_cast<int64_t>(outSizes.size()) - 1, r = o; d >= 0; --d) {
          const int64_t i = r % outSizes[d];
          r /= outSizes[d];
          yo += i * yStrides[d];
          for (size_t k = 0; k < n; ++k) base[k] += i * outStrides[k][d];
        }
        off = base;
        std::fill(ctr.begin(), ctr.end(), 0);
        A acc = 0;
        for (int64_t c = 0; c < sumCount; c += inner) {
          acc += innerSum<A>(x, off, inner, innerStride);
          for (size_t d = ns - 1; d-- > 0;) {  // odometer over the outer contracted labels
            for (size_t k = 0; k < n; ++k) off[k] += sumStrides[k][d];
            if (++ctr[d] < sumSizes[d]) break;
            for (size_t k = 0; k < n; ++k) off[k] -= sumStrides[k][d] * sumSizes[d];
            ctr[d] = 0;
          }
        }
        y[yo] = static_cast<T>(acc);
      }
    }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, sumCount * static_cast<int64_t>(n))));
  }
};

/// Einsum and EinsumGrad: the plan over every input into output 0.
template <class OP> class EinsumOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<OP>();
    std::vector<Shape> shapes;
    std::vector<popx::TensorView> xs;
    for (int k = 0; k < static_cast<int>(op_p->input->n()); ++k) {
      xs.push_back(getInTensor(k));
      shapes.push_back(inShape(k));
    }
    auto plan =
        std::make_shared<const EinsumPlan>(op.inputLabels(), shapes, op.outputLabels(), outShape(0), op.sizes());
    popx::TensorView y = getOutTensor(0);
    if (y.nelms() == 0) return;
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      std::vector<const T *> ptrs;  // buffers are stable for the session's life
      for (const auto &v : xs) ptrs.push_back(v.data<T>());
      prog.add([plan, ptrs, y] { plan->run(ptrs, y.data<T>(), y.nelms()); });
    });
  }
};

} // namespace
static popx::OpxCreator<EinsumOpx<EinsumOp>> POPART_UNIQUE_NAME(einsumOpxCreator_)(onnxOp("Einsum"));
static popx::OpxCreator<EinsumOpx<EinsumGradOp>> POPART_UNIQUE_NAME(einsumOpxCreator_)(internalOp("EinsumGrad"));
} // namespace popart::cpu
