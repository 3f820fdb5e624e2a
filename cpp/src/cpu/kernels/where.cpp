// Where: out = c ? x : y over the broadcast of three inputs. At grow() the dims are
// merged where all three broadcast the same way; the inner run reads each input as
// a vector or a scalar (one of eight row functions); outer rows advance by odometer.
// Elements are moved by size, so every type shares one loop.
// WhereXGrad / WhereYGrad: t = c ? dy : 0 (c ? 0 : dy) over the output's shape,
// then summed over the dims X (Y) was broadcast along.
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include "sum_to_shape.hpp"
#include <array>

namespace popart::cpu {
namespace {

constexpr size_t kMaxWhereDims = 32;

struct WherePlan {
  std::vector<int64_t> dims;                   // outer merged dims
  std::array<std::vector<int64_t>, 3> strides;  // per input, per outer dim (elements)
  int64_t rows = 1, inner = 1;
  int innerMode = 7;  // bit k: input k is read as a vector by the inner loop
};

WherePlan makeWherePlan(const std::array<Shape, 3> &in, const Shape &out) {
  const size_t rank = out.size();
  struct Dim { int64_t size; int flags; };
  std::vector<Dim> merged;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    int flags = 0;
    for (int k = 0; k < 3; ++k) {
      size_t pad = rank - in[k].size();
      if (d >= pad && in[k][d - pad] != 1) flags |= 1 << k;
    }
    if (!merged.empty() && merged.back().flags == flags) merged.back().size *= out[d];
    else merged.push_back({out[d], flags});
  }
  WherePlan p;
  if (merged.empty()) return p;
  p.inner = merged.back().size;
  p.innerMode = merged.back().flags;
  std::array<int64_t, 3> s;
  for (int k = 0; k < 3; ++k) s[k] = (p.innerMode >> k) & 1 ? p.inner : 1;
  const size_t outer = merged.size() - 1;
  p.dims.resize(outer);
  for (auto &v : p.strides) v.resize(outer);
  for (size_t j = outer; j-- > 0;) {
    p.dims[j] = merged[j].size;
    p.rows *= merged[j].size;
    for (int k = 0; k < 3; ++k) {
      bool full = (merged[j].flags >> k) & 1;
      p.strides[k][j] = full ? s[k] : 0;
      if (full) s[k] *= merged[j].size;
    }
  }
  if (outer > kMaxWhereDims) throw error("Where over {} merged dims is not supported", outer);
  return p;
}

template <class U, bool VC, bool VX, bool VY>
void whereRow(const bool *c, const U *x, const U *y, U *z, int64_t n) {
  const auto *cb = reinterpret_cast<const uint8_t *>(c);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {  // bit-select on a 0/1 mask: vectorises for every U
    const U m = static_cast<U>(U(0) - static_cast<U>(cb[VC ? i : 0]));
    z[i] = static_cast<U>((x[VX ? i : 0] & m) | (y[VY ? i : 0] & static_cast<U>(~m)));
  }
}

template <class U> using WhereRowFn = void (*)(const bool *, const U *, const U *, U *, int64_t);

template <class U> WhereRowFn<U> whereRowFor(int mode) {
  static const WhereRowFn<U> table[8] = {
      whereRow<U, 0, 0, 0>, whereRow<U, 1, 0, 0>, whereRow<U, 0, 1, 0>, whereRow<U, 1, 1, 0>,
      whereRow<U, 0, 0, 1>, whereRow<U, 1, 0, 1>, whereRow<U, 0, 1, 1>, whereRow<U, 1, 1, 1>};
  return table[mode];
}

template <class U> void runWhere(const WherePlan &p, const bool *c, const U *x, const U *y, U *z) {
  const WhereRowFn<U> row = whereRowFor<U>(p.innerMode);
  const int64_t vc = p.innerMode & 1, vx = (p.innerMode >> 1) & 1, vy = (p.innerMode >> 2) & 1;
  if (p.rows == 1) {
    popx::Opx::parallelFor(p.inner,
                           [&](int64_t b, int64_t e) { row(c + vc * b, x + vx * b, y + vy * b, z + b, e - b); });
    return;
  }
  const int nd = static_cast<int>(p.dims.size());
  popx::Opx::parallelFor(p.rows, [&](int64_t r0, int64_t r1) {
    std::array<int64_t, kMaxWhereDims> idx{};
    std::array<int64_t, 3> off{};
    for (int64_t q = r0, d = nd - 1; d >= 0; --d) {
      idx[d] = q % p.dims[d];
      q /= p.dims[d];
      for (int k = 0; k < 3; ++k) off[k] += idx[d] * p.strides[k][d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      row(c + off[0], x + off[1], y + off[2], z + r * p.inner, p.inner);
      for (int d = nd - 1; d >= 0; --d) {
        for (int k = 0; k < 3; ++k) off[k] += p.strides[k][d];
        if (++idx[d] < p.dims[d]) break;
        for (int k = 0; k < 3; ++k) off[k] -= p.strides[k][d] * p.dims[d];
        idx[d] = 0;
      }
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(p.inner, 1)));
}

class WhereOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    WherePlan plan = makeWherePlan({inShape(0), inShape(1), inShape(2)}, outShape(0));
    auto c = getInTensor(0), x = getInTensor(1), y = getInTensor(2), z = getOutTensor(0);
    if (z.nelms() == 0) return;
    dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
      using U = decltype(tag);
      const bool *pc = static_cast<const bool *>(c.raw());
      const U *px = static_cast<const U *>(x.raw()), *py = static_cast<const U *>(y.raw());
      U *pz = static_cast<U *>(z.raw());
      prog.add([=] { runWhere(plan, pc, px, py, pz); });
    });
  }
};

class WhereGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto dy = getInTensor(0), c = getInTensor(1), dx = getOutTensor(0);
    const bool pick = op_p->opid.type == "WhereXGrad";  // the gradient flows where c == pick
    const Shape &out = inShape(0);
    const bool reduce = dx.nelms() != dy.nelms();
    popx::TensorView full = reduce ? createTensor(dy.info()) : dx;
    const BroadcastPlan plan = makeBroadcastPlan(out, c.shape(), out), sumPlan = makeSumPlan(dx.shape(), out);
    prog.add([=] {
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        runBroadcast(plan, dy.data<T>(), static_cast<const bool *>(c.raw()), full.data<T>(),
                     [pick](T g, bool k) { return k == pick ? g : T(0.0f); });
        if (reduce) sumToShape(sumPlan, static_cast<const T *>(full.data<T>()), dx.data<T>(), dx.nelms());
      });
    });
  }
};

} // namespace
static popx::OpxCreator<WhereOpx> whereOpxCreator(onnxOp("Where"));
static popx::OpxCreator<WhereGradOpx> whereGradOpxCreator(
    std::vector<OperatorIdentifier>{internalOp("WhereXGrad"), internalOp("WhereYGrad")});
} // namespace popart::cpu
