// Gather: y[o, j, :] = x[o, k_j, :] over x viewed as [outer, d, inner] and y as
// [outer, n_indices, inner]; k_j = indices[j] (+ d when negative). Indices are
// checked first, then the rows are copied in parallel.
#include "ops/gather.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "ops/shape_util.hpp"
#include "strided_copy.hpp"
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

  template <class I, class U> void rows(const I *idx, const U *x, U *y, int64_t b, int64_t e) const {
    for (int64_t item = b; item < e; ++item) {
      const int64_t o = item / nIdx, k = idx[item % nIdx] < 0 ? idx[item % nIdx] + dim : idx[item % nIdx];
      const U *src = x + (o * dim + k) * inner;
      U *dst = y + item * inner;
      if (inner == 1) *dst = *src;
      else std::memcpy(dst, src, static_cast<size_t>(inner) * sizeof(U));
    }
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

} // namespace
static popx::OpxCreator<GatherOpx> POPART_UNIQUE_NAME(gatherOpxCreator_)(onnxOp("Gather"));
} // namespace popart::cpu
