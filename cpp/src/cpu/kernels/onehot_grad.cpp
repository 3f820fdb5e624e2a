// OneHotGrad: y is `off` except `on` at each in-range index, so d on = sum of dy at the
// hot positions and d off = sum(dy) - d on. Sums in double over fixed row blocks in
// parallel (partials planned at grow()), then added in block order.
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <memory>
#include <vector>

namespace popart::cpu {
namespace {

/// Sums over rows [r0, r1) of dy viewed as [outer, depth, inner]; row r = (o, i).
template <class I, class T>
void oneHotGradRows(const I *idx, const T *dy, int64_t depth, int64_t inner, int64_t r0, int64_t r1, double &all,
                    double &hot) {
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t o = r / inner, i = r % inner;
    const T *lane = dy + o * depth * inner + i;
    for (int64_t d = 0; d < depth; ++d) all += static_cast<double>(lane[d * inner]);
    int64_t v = static_cast<int64_t>(compute_t<I>(idx[r]));
    if (v < 0) v += depth;
    if (v >= 0 && v < depth) hot += static_cast<double>(lane[v * inner]);
  }
}

class OneHotGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &out = inShape(0);
    const int64_t axis = shapeutil::normaliseAxis(op_p->attr<Attributes::Int>("axis", -1), out.size());
    const int64_t depth = out[axis], inner = shapeutil::product(out, axis + 1, out.size());
    const int64_t rows = shapeutil::product(out, 0, axis) * inner, blocks = std::min<int64_t>(64, rows);
    auto partials = std::make_shared<std::vector<double>>(2 * std::max<int64_t>(1, blocks));
    popx::TensorView dy = getInTensor(0), idx = getInTensor(1), dv = getOutTensor(0);
    dispatchNumeric(idx.dtype(), [&](auto itag) {
      using I = decltype(itag);
      dispatchFloat(dv.dtype(), [&](auto tag) {
        using T = decltype(tag);
        prog.add([=] {
          double *p = partials->data();
          std::fill(p, p + partials->size(), 0.0);
          popx::Opx::parallelFor(blocks, [&](int64_t b, int64_t e) {
            for (int64_t k = b; k < e; ++k)
              oneHotGradRows(static_cast<const I *>(idx.raw()), dy.data<T>(), depth, inner, rows * k / blocks,
                             rows * (k + 1) / blocks, p[2 * k], p[2 * k + 1]);
          }, 1);
          double all = 0, hot = 0;
          for (int64_t k = 0; k < blocks; ++k) all += p[2 * k], hot += p[2 * k + 1];
          dv.data<T>()[0] = static_cast<T>(all - hot);
          dv.data<T>()[1] = static_cast<T>(hot);
        });
      });
    });
  }
};

} // namespace
static popx::OpxCreator<OneHotGradOpx> oneHotGradOpxCreator(internalOp("OneHotGrad"));
} // namespace popart::cpu
