// ScatterReduce kernels: the (possibly broadcast) index is expanded once per run to
// one int64 per src element and range-checked; then work splits over (outer, column
// block) so each thread owns whole output columns y[o, :, c0:c1] (no races, and `none`
// keeps row-major write order). Scratch buffers (touched flags, counts, products, last
// writers) are made at grow(). float16 reduces in float.
// GroupedGather: row copies per (group, outer, index); its gradient a scatter-add
// parallel over (group, outer).
#include "dispatch.hpp"
#include "ops/graphcore_scatter.hpp"
#include "popart/popx/opx.hpp"
#include "scatter_util.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>
#include <limits>

namespace popart::cpu {
namespace {

using Red = GcScatterReduction;

struct ScatterPlan {
  ScatterLayout L;
  Red red;
  std::vector<int64_t> index;      // expanded, one per src element
  std::vector<int64_t> count;      // per output element
  std::vector<double> product;     // per output element (mul gradient)

  ScatterPlan(const ScatterLayout &l, Red r, int64_t outElems)
      : L(l), red(r), index(static_cast<size_t>(l.outer * l.n * l.inner)), count(static_cast<size_t>(outElems)),
        product(r == Red::Mul ? static_cast<size_t>(outElems) : 0) {}

  template <class I> void expand(const I *idx) {
    const Shape &s = L.srcShape;
    const int64_t total = static_cast<int64_t>(index.size());
    popx::Opx::parallelFor(total, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) {
        int64_t rest = p, off = 0;
        for (int64_t k = static_cast<int64_t>(s.size()) - 1; k >= 0; --k) {
          off += rest % s[k] * L.indexStrides[k];
          rest /= s[k];
        }
        index[p] = static_cast<int64_t>(idx[off]);
      }
    });
    for (int64_t p = 0; p < total; ++p)
      if (index[p] < 0 || index[p] >= L.axisSize)
        throw error("index {} (for src element {}) out of range for axis_size {}", index[p], p, L.axisSize);
  }

  void expand(const popx::TensorView &t) {
    if (t.dtype() == DataType::INT32) expand(t.data<int32_t>());
    else expand(t.data<int64_t>());
  }

  /// f(srcPos, outPos, a) for every src element, a in row-major order within each column.
  template <class F> void forColumns(F &&f) const {
    const int64_t cols = std::max<int64_t>(1, std::min<int64_t>(L.inner, 256));
    const int64_t blocks = (L.inner + cols - 1) / cols;
    popx::Opx::parallelFor(L.outer * blocks, [&](int64_t b, int64_t e) {
      for (int64_t item = b; item < e; ++item) {
        const int64_t o = item / blocks, c0 = item % blocks * cols, c1 = std::min(L.inner, c0 + cols);
        for (int64_t a = 0; a < L.n; ++a) {
          const int64_t s0 = (o * L.n + a) * L.inner;
          for (int64_t c = c0; c < c1; ++c) f(s0 + c, (o * L.axisSize + index[s0 + c]) * L.inner + c, a);
        }
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, L.n * cols)));
  }
};

template <class C> C gcScatterIdentity(Red r) {
  if (r == Red::Mul) return C(1);
  if (r == Red::Max) return std::numeric_limits<C>::lowest();
  if (r == Red::Min) return std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity()
                                                                 : std::numeric_limits<C>::max();
  return C(0);
}

template <class C> C gcScatterCombine(Red r, C acc, C v) {
  switch (r) {
  case Red::Sum: return acc + v;
  case Red::Max: return std::max(acc, v);
  case Red::Min: return std::min(acc, v);
  case Red::Mul: return acc * v;
  default: return v;
  }
}

template <class T> void gcScatterForward(ScatterPlan &p, const T *src, const T *init, T *y, int64_t outElems) {
  using C = compute_t<T>;
  const C id = gcScatterIdentity<C>(p.red);
  for (int64_t i = 0; i < outElems; ++i) {
    y[i] = init ? init[i] : static_cast<T>(id);
    p.count[i] = 0;
  }
  p.forColumns([&](int64_t s, int64_t o, int64_t) {
    y[o] = static_cast<T>(gcScatterCombine(p.red, static_cast<C>(y[o]), static_cast<C>(src[s])));
    p.count[o] = 1;
  });
  if (!init)
    for (int64_t i = 0; i < outElems; ++i)
      if (!p.count[i]) y[i] = static_cast<T>(C(0));
}

/// dsrc and dinit (may be null) from dy, src, y and init (may be null).
template <class T> void gcScatterGrad(ScatterPlan &p, const T *dy, const T *src, const T *y, const T *init, T *dsrc,
                                    T *dinit, int64_t outElems) {
  using C = compute_t<T>;
  auto &cnt = p.count;
  auto &prod = p.product;
  for (int64_t i = 0; i < outElems; ++i) {
    const bool initHit = init && (p.red == Red::Max || p.red == Red::Min) && C(init[i]) == C(y[i]);
    cnt[i] = p.red == Red::None ? -1 : initHit ? 1 : 0;
    if (p.red == Red::Mul) {
      const bool zero = init && C(init[i]) == C(0);
      cnt[i] = zero ? 1 : 0;
      prod[i] = init && !zero ? double(C(init[i])) : 1.0;
    }
  }
  p.forColumns([&](int64_t s, int64_t o, int64_t a) {
    const C v = src[s];
    if (p.red == Red::None) cnt[o] = a;
    else if ((p.red == Red::Max || p.red == Red::Min) && v == C(y[o])) ++cnt[o];
    else if (p.red == Red::Mul && v == C(0)) ++cnt[o];
    else if (p.red == Red::Mul) prod[o] *= double(v);
  });
  // gradient of one entry of value v feeding output o (v's own factor excluded for mul)
  auto share = [&](int64_t o, C v, bool isLast) -> C {
    const C g = dy[o];
    switch (p.red) {
    case Red::Sum: return g;
    case Red::None: return isLast ? g : C(0);
    case Red::Max:
    case Red::Min: return v == C(y[o]) ? g / C(cnt[o]) : C(0);
    default:
      if (cnt[o] == 0) return static_cast<C>(double(g) * prod[o] / double(v));
      return cnt[o] == 1 && v == C(0) ? static_cast<C>(double(g) * prod[o]) : C(0);
    }
  };
  p.forColumns([&](int64_t s, int64_t o, int64_t a) { dsrc[s] = static_cast<T>(share(o, src[s], cnt[o] == a)); });
  if (dinit)
    for (int64_t i = 0; i < outElems; ++i) dinit[i] = static_cast<T>(share(i, init[i], cnt[i] == -1));
}

class ScatterReduceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ScatterReduceOp>();
    popx::TensorView src = getInTensor(0), idx = getInTensor(1), y = getOutTensor(0);
    popx::TensorView init = hasInput(2) ? getInTensor(2) : popx::TensorView();
    auto plan = std::make_shared<ScatterPlan>(op.layout(), op.reduction(), y.nelms());
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([plan, src, idx, init, y] {
        plan->expand(idx);
        gcScatterForward(*plan, src.data<T>(), static_cast<const T *>(init.raw()), y.data<T>(), y.nelms());
      });
    });
  }
};

class ScatterReduceGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ScatterReduceGradOp>();
    popx::TensorView dy = getInTensor(0), src = getInTensor(1), idx = getInTensor(2), y = getInTensor(3);
    popx::TensorView init = hasInput(4) ? getInTensor(4) : popx::TensorView();
    popx::TensorView dsrc = getOutTensor(0), dinit = hasOutput(1) ? getOutTensor(1) : popx::TensorView();
    auto plan = std::make_shared<ScatterPlan>(op.layout(), op.reduction(), y.nelms());
    dispatchFloat(dsrc.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        plan->expand(idx);
        gcScatterGrad(*plan, dy.data<T>(), src.data<T>(), y.data<T>(), static_cast<const T *>(init.raw()),
                    dsrc.data<T>(), static_cast<T *>(dinit.raw()), y.nelms());
      });
    });
  }
};

template <class I> void checkGroupedIndices(const I *idx, int64_t n, int64_t dim) {
  for (int64_t j = 0; j < n; ++j)
    if (idx[j] < -dim || idx[j] >= dim)
      throw error("index {} (at flat position {}) out of range for an axis of size {}", idx[j], j, dim);
}

template <class I>
void groupedGather(const GroupedGatherLayout &L, const I *idx, const char *x, char *y, int64_t elem) {
  checkGroupedIndices(idx, L.groups * L.nIdx, L.dim);
  const int64_t row = L.inner * elem;
  popx::Opx::parallelFor(L.groups * L.outer, [&](int64_t b, int64_t e) {
    for (int64_t go = b; go < e; ++go) {
      const I *gi = idx + go / L.outer * L.nIdx;
      const char *xs = x + go * L.dim * row;
      char *yd = y + go * L.nIdx * row;
      for (int64_t j = 0; j < L.nIdx; ++j)
        std::memcpy(yd + j * row, xs + (gi[j] < 0 ? gi[j] + L.dim : gi[j]) * row, static_cast<size_t>(row));
    }
  }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, L.nIdx * L.inner)));
}

template <class I, class T> void groupedGatherGrad(const GroupedGatherLayout &L, const I *idx, const T *dy, T *dx) {
  checkGroupedIndices(idx, L.groups * L.nIdx, L.dim);
  zeroBytes(dx, L.groups * L.outer * L.dim * L.inner * static_cast<int64_t>(sizeof(T)));
  popx::Opx::parallelFor(L.groups * L.outer, [&](int64_t b, int64_t e) {
    for (int64_t go = b; go < e; ++go) {
      const I *gi = idx + go / L.outer * L.nIdx;
      for (int64_t j = 0; j < L.nIdx; ++j) {
        T *d = dx + (go * L.dim + (gi[j] < 0 ? gi[j] + L.dim : gi[j])) * L.inner;
        const T *s = dy + (go * L.nIdx + j) * L.inner;
        for (int64_t c = 0; c < L.inner; ++c) d[c] = static_cast<T>(compute_t<T>(d[c]) + compute_t<T>(s[c]));
      }
    }
  }, 1);
}

class GroupedGatherOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView a = getInTensor(0), idx = getInTensor(1), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    if (auto *fwd = dynamic_cast<GroupedGatherOp *>(op_p)) {
      const GroupedGatherLayout L = fwd->layout();
      const int64_t elem = dataTypeSize(a.dtype());
      dispatchIndex(idx.dtype(), [&](auto itag) {
        using I = decltype(itag);
        prog.add([=] {
          groupedGather(L, idx.data<I>(), static_cast<const char *>(a.raw()), static_cast<char *>(y.raw()), elem);
        });
      });
      return;
    }
    const GroupedGatherLayout L = getOp<GroupedGatherGradOp>().layout();
    dispatchFloat(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      dispatchIndex(idx.dtype(), [&](auto itag) {
        using I = decltype(itag);
        prog.add([=] { groupedGatherGrad(L, idx.data<I>(), a.data<T>(), y.data<T>()); });
      });
    });
  }
};

} // namespace
static popx::OpxCreator<ScatterReduceOpx> POPART_UNIQUE_NAME(gcScatterOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("ScatterReduce"), graphcoreOp("GroupedScatterReduce")});
static popx::OpxCreator<ScatterReduceGradOpx> POPART_UNIQUE_NAME(gcScatterGradOpxCreator_)(
    internalOp("ScatterReduceGrad"));
static popx::OpxCreator<GroupedGatherOpx> POPART_UNIQUE_NAME(gcGroupedGatherOpxCreator_)(
    std::vector<OperatorIdentifier>{graphcoreOp("GroupedGather"), internalOp("GroupedGatherGrad")});
} // namespace popart::cpu
