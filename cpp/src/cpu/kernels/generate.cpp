// OneHot (fill with off, then one store of on per index), Range (start + i * delta
// in the element type) and EyeLike (zeros, then the diagonal). Values such as
// start/delta and off/on are read at each run from their (constant) inputs.
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

template <class I, class U>
void runOneHot(const I *idx, const U *values, U *y, int64_t outer, int64_t depth, int64_t inner) {
  const U off = values[0], on = values[1];
  const int64_t total = outer * depth * inner;
  popx::Opx::parallelFor(total, [&](int64_t b, int64_t e) { std::fill(y + b, y + e, off); });
  popx::Opx::parallelFor(outer * inner, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      auto v = static_cast<int64_t>(compute_t<I>(idx[p]));
      if (v < 0) v += depth;
      if (v < 0 || v >= depth) continue;
      const int64_t o = p / inner, i = p % inner;
      y[(o * depth + v) * inner + i] = on;
    }
  });
}

class OneHotOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &out = outShape(0);
    const int64_t axis = shapeutil::normaliseAxis(op_p->attr<Attributes::Int>("axis", -1), out.size());
    const int64_t outer = shapeutil::product(out, 0, axis), depth = out[axis];
    const int64_t inner = shapeutil::product(out, axis + 1, out.size());
    auto idx = getInTensor(0), values = getInTensor(2), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    dispatchNumeric(idx.dtype(), [&](auto itag) {
      using I = decltype(itag);
      dispatchBytes(dataTypeSize(y.dtype()), [&](auto utag) {
        using U = decltype(utag);
        const I *pi = static_cast<const I *>(idx.raw());
        const U *pv = static_cast<const U *>(values.raw());
        U *py = static_cast<U *>(y.raw());
        prog.add([=] { runOneHot(pi, pv, py, outer, depth, inner); });
      });
    });
  }
};

class RangeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto start = getInTensor(0), delta = getInTensor(2), y = getOutTensor(0);
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      using C = compute_t<T>;
      const T *ps = start.data<T>(), *pd = delta.data<T>();
      T *py = y.data<T>();
      const int64_t n = y.nelms();
      prog.add([=] {
        const C s = C(ps[0]), d = C(pd[0]);
        popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) py[i] = T(static_cast<C>(s + static_cast<C>(i) * d));
        });
      });
    });
  }
};

class EyeLikeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto y = getOutTensor(0);
    const int64_t rows = outShape(0)[0], cols = outShape(0)[1];
    const int64_t k = op_p->attr<Attributes::Int>("k", 0);
    dispatchAll(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T *py = y.data<T>();
      prog.add([=] {
        std::fill(py, py + rows * cols, T(0.0f));
        for (int64_t i = std::max<int64_t>(0, -k); i < rows && i + k < cols; ++i) py[i * cols + i + k] = T(1.0f);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<OneHotOpx> oneHotOpxCreator(onnxOp("OneHot"));
static popx::OpxCreator<RangeOpx> rangeOpxCreator(onnxOp("Range"));
static popx::OpxCreator<EyeLikeOpx> eyeLikeOpxCreator(onnxOp("EyeLike"));
} // namespace popart::cpu
