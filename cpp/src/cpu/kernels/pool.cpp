// MaxPool / AveragePool: oneDNN pooling for FLOAT/FLOAT16 (FLOAT16 staged in float), plain loops for other
// types, for MaxPool's Indices output and for count_include_pad windows stretched by ceil_mode.
// Y = max (or sum / count) of x[o * s - padBegin + t * d] over taps t; GlobalAverage/MaxPool: over all of x[n, c].
#include "dispatch.hpp"
#include "ops/conv_attributes.hpp"
#include "popart/popx/opx.hpp"
#include "window_util.hpp"
#include <algorithm>
#include <limits>
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/primitive_step.hpp"
#endif

namespace popart::cpu {
namespace {

struct PoolShape {
  int64_t planes;  // N * C
  bool isMax, countPad, columnMajor;
  WindowGeometry g;
};

PoolShape poolShape(const popx::Opx &opx) {
  const Op &op = *opx.op_p;
  const auto &x = opx.inShape(0);
  auto g = windowGeometry(op, Shape(x.begin() + 2, x.end()), op.attr<Attributes::Ints>("kernel_shape"),
                          op.attr<Attributes::Int>("ceil_mode", 0) != 0);
  return {x[0] * x[1], op.opid.type == "MaxPool", op.attr<Attributes::Int>("count_include_pad", 0) != 0,
          op.attr<Attributes::Int>("storage_order", 0) != 0, g};
}

/// Flat index of input position p within its plane, row- or column-major (MaxPool's storage_order).
int64_t poolPlaneIndex(const Window3 &w, const int64_t p[3], bool columnMajor) {
  if (!columnMajor) return (p[0] * w.in[1] + p[1]) * w.in[2] + p[2];
  return (p[2] * w.in[1] + p[1]) * w.in[0] + p[0];
}

template <class T> struct PoolLoop {
  using Acc = compute_t<T>;
  const PoolShape &ps;
  Window3 w;

  /// The output element at output position o of one plane x: y, and the argmax for MaxPool.
  void element(const T *x, const int64_t o[3], T &y, int64_t *index) const {
    Acc best = std::numeric_limits<Acc>::lowest(), sum = 0;
    int64_t count = 0, arg = 0;
    int64_t p[3];
    for (int64_t a = 0; a < w.k[0]; ++a)
      for (int64_t b = 0; b < w.k[1]; ++b)
        for (int64_t c = 0; c < w.k[2]; ++c) {
          p[0] = w.pos(0, o[0], a), p[1] = w.pos(1, o[1], b), p[2] = w.pos(2, o[2], c);
          bool in = w.inside(0, p[0]) && w.inside(1, p[1]) && w.inside(2, p[2]);
          if (!in) {
            count += ps.countPad && inPadding(p);
            continue;
          }
          Acc v = x[(p[0] * w.in[1] + p[1]) * w.in[2] + p[2]];
          ++count;
          sum += v;
          if (v > best) best = v, arg = poolPlaneIndex(w, p, ps.columnMajor);
        }
    y = static_cast<T>(ps.isMax ? best : sum / static_cast<Acc>(std::max<int64_t>(count, 1)));
    if (index) *index = arg;
  }
  /// Inside the explicit padding (not the extension ceil_mode adds).
  bool inPadding(const int64_t p[3]) const {
    for (int i = 0; i < 3; ++i)
      if (p[i] < -w.pb[i] || p[i] >= w.in[i] + w.pe[i]) return false;
    return true;
  }
  void run(const T *x, T *y, int64_t *indices) const {
    int64_t inSize = w.inSize(), outSize = w.outSize();
    popx::Opx::parallelFor(ps.planes, [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl)
        for (int64_t f = 0; f < outSize; ++f) {
          int64_t o[3] = {f / (w.out[1] * w.out[2]), (f / w.out[2]) % w.out[1], f % w.out[2]};
          int64_t *idx = indices ? indices + pl * outSize + f : nullptr;
          element(x + pl * inSize, o, y[pl * outSize + f], idx);
          if (idx) *idx += pl * inSize;
        }
    }, 1);
  }
};

#ifdef POPART_WITH_DNNL
bool growPoolDnnl(popx::Sequence &prog, const popx::Opx &opx, const PoolShape &ps) {
  const auto &g = ps.g;
  dnnl::memory::dims k(g.kernel.begin(), g.kernel.end()), s(g.strides.begin(), g.strides.end()), dil, pl, pr;
  bool stretched = false;
  for (size_t i = 0; i < g.rank(); ++i) {
    dil.push_back(g.dilations[i] - 1);
    pl.push_back(g.padsBegin[i]);
    pr.push_back(std::max(g.padsEnd[i], g.reachedPadEnd(i)));
    stretched = stretched || g.reachedPadEnd(i) > g.padsEnd[i];
  }
  if (ps.countPad && stretched) return false;  // oneDNN would count the ceil_mode extension too
  auto algo = ps.isMax ? dnnl::algorithm::pooling_max
                       : ps.countPad ? dnnl::algorithm::pooling_avg_include_padding
                                     : dnnl::algorithm::pooling_avg_exclude_padding;
  auto xd = dnnl_ctx::plainDesc(opx.inShape(0)), yd = dnnl_ctx::plainDesc(opx.outShape(0));
  dnnl::pooling_forward::primitive_desc pd;
  try {
    pd = {dnnl_ctx::engine(), dnnl::prop_kind::forward_inference, algo, xd, yd, s, k, dil, pl, pr};
  } catch (const dnnl::error &) {
    return false;
  }
  auto step = std::make_shared<PrimitiveStep>();
  auto x = step->staging.in(opx, 0), y = step->staging.out(opx, 0);
  step->add(dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, dnnl_ctx::wrap(xd, x.raw())}, {DNNL_ARG_DST, dnnl_ctx::wrap(yd, y.raw())}});
  addStep(prog, step, opx);
  return true;
}
#endif

class PoolOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto ps = poolShape(*this);
    auto type = inInfo(0).dataType();
    bool indices = hasOutput(1);
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(type) && !indices && outInfo(0).nelms() > 0 && growPoolDnnl(prog, *this, ps)) return;
#endif
    const void *x = getInTensor(0).raw();
    void *y = getOutTensor(0).raw();
    int64_t *idx = indices ? getOutTensor(1).data<int64_t>() : nullptr;
    prog.add([=] {
      dispatchNumeric(type, [&](auto tag) {
        using T = decltype(tag);
        PoolLoop<T>{ps, Window3(ps.g)}.run(static_cast<const T *>(x), static_cast<T *>(y), idx);
      });
    });
  }
};

template <class T> void globalPool(const T *x, T *y, int64_t planes, int64_t size, bool isMax) {
  using Acc = compute_t<T>;
  popx::Opx::parallelFor(planes, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T *xp = x + p * size;
      Acc r = isMax ? std::numeric_limits<Acc>::lowest() : Acc(0);
      for (int64_t i = 0; i < size; ++i) r = isMax ? std::max(r, Acc(xp[i])) : r + Acc(xp[i]);
      y[p] = static_cast<T>(isMax ? r : r / static_cast<Acc>(size));
    }
  }, 16);
}

class GlobalPoolOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &xs = inShape(0);
    int64_t planes = xs[0] * xs[1], size = inInfo(0).nelms() / std::max<int64_t>(planes, 1);
    bool isMax = op_p->opid.type == "GlobalMaxPool";
    auto type = inInfo(0).dataType();
    const void *x = getInTensor(0).raw();
    void *y = getOutTensor(0).raw();
    prog.add([=] {
      dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        globalPool(static_cast<const T *>(x), static_cast<T *>(y), planes, size, isMax);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<PoolOpx> poolOpxCreator({onnxOp("MaxPool"), onnxOp("AveragePool")});
static popx::OpxCreator<GlobalPoolOpx> globalPoolOpxCreator({onnxOp("GlobalAveragePool"), onnxOp("GlobalMaxPool")});
} // namespace popart::cpu
