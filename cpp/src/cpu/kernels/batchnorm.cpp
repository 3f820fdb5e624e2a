// BatchNormalization kernels (formulas in ops/batchnorm.cpp). X is [N, C, inner...]: a channel's M = N * inner
// values are N strided runs. Inference: per channel a = scale / sqrt(var + eps), b = B - mean * a, Y = a X + b.
// Training: channels in parallel, batch mean and variance in double (two passes), then Y, the new running
// statistics (written into the mean/var Variables when the op updates them) and the saved statistics.
// Gradient: per channel sums of dY and dY * xh (double), then dX; batch statistics recomputed from X.
#include "dispatch.hpp"
#include "ops/batchnorm.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <memory>

namespace popart::cpu {
namespace {

/// Channel c, batch n starts at (n * channels + c) * inner.
struct BatchNormLayout {
  int64_t batch, channels, inner;
  int64_t count() const { return batch * inner; }
  int64_t grain() const { return std::max<int64_t>(1, 16384 / std::max<int64_t>(count(), 1)); }
};

BatchNormLayout batchNormLayout(const TensorInfo &x, const TensorInfo &param) {
  const int64_t channels = param.nelms();  // C, or C * spatial with spatial=0 (opset < 9)
  const int64_t batch = x.dim(0);
  return {batch, channels, x.nelms() / std::max<int64_t>(batch * channels, 1)};
}

/// Per-channel parameter, converted from its own float type (opset 15 allows one different from X).
template <class Acc> void readBatchNormParam(const popx::TensorView &t, std::vector<Acc> &out) {
  dispatchFloat(t.dtype(), [&](auto tag) {
    using P = decltype(tag);
    const P *p = static_cast<const P *>(t.raw());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<Acc>(static_cast<compute_t<P>>(p[i]));
  });
}

void writeBatchNormParam(const std::vector<double> &in, const popx::TensorView &t) {
  if (!t.raw()) return;
  dispatchFloat(t.dtype(), [&](auto tag) {
    using P = decltype(tag);
    P *p = static_cast<P *>(t.raw());
    for (size_t i = 0; i < in.size(); ++i) p[i] = static_cast<P>(static_cast<compute_t<P>>(in[i]));
  });
}

/// Mean and population variance of channel c.
template <class T> void batchNormMoments(const T *x, const BatchNormLayout &l, int64_t c, double &mean, double &var) {
  double s = 0, q = 0;
  for (int64_t n = 0; n < l.batch; ++n) {
    const T *xi = x + (n * l.channels + c) * l.inner;
    for (int64_t i = 0; i < l.inner; ++i) s += static_cast<double>(xi[i]);
  }
  mean = s / static_cast<double>(std::max<int64_t>(l.count(), 1));
  for (int64_t n = 0; n < l.batch; ++n) {
    const T *xi = x + (n * l.channels + c) * l.inner;
    for (int64_t i = 0; i < l.inner; ++i) {
      const double d = static_cast<double>(xi[i]) - mean;
      q += d * d;
    }
  }
  var = q / static_cast<double>(std::max<int64_t>(l.count(), 1));
}

/// Y = a[c] X + b[c] over every run of channel c.
template <class T> void batchNormApply(const T *x, T *y, const BatchNormLayout &l, int64_t c, double a, double b) {
  using Acc = compute_t<T>;
  const Acc s = static_cast<Acc>(a), t = static_cast<Acc>(b);
  for (int64_t n = 0; n < l.batch; ++n) {
    const int64_t off = (n * l.channels + c) * l.inner;
    for (int64_t i = 0; i < l.inner; ++i) y[off + i] = static_cast<T>(static_cast<Acc>(x[off + i]) * s + t);
  }
}

/// Per-channel double vectors kept between runs.
struct BatchNormScratch {
  explicit BatchNormScratch(int64_t c) : v(6, std::vector<double>(static_cast<size_t>(c))) {}
  std::vector<std::vector<double>> v;
};

template <class T> struct BatchNormInferStep {
  popx::TensorView x, y, scale, bias, mean, var;
  BatchNormLayout l;
  double eps;
  std::shared_ptr<BatchNormScratch> s;

  void operator()() const {
    auto [a, b, m, v] = std::tie(s->v[0], s->v[1], s->v[2], s->v[3]);
    readBatchNormParam(scale, a), readBatchNormParam(bias, b), readBatchNormParam(mean, m), readBatchNormParam(var, v);
    const T *xp = x.data<T>();
    T *yp = y.data<T>();
    const BatchNormLayout lay = l;
    const double *ap = a.data(), *bp = b.data(), *mp = m.data(), *vp = v.data();
    const double e = eps;
    popx::Opx::parallelFor(l.channels, [=](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const double k = ap[c] / std::sqrt(vp[c] + e);
        batchNormApply(xp, yp, lay, c, k, bp[c] - mp[c] * k);
      }
    }, l.grain());
  }
};

/// outs: new running mean, new running var, saved mean, saved var (null views when absent).
template <class T> struct BatchNormTrainStep {
  popx::TensorView x, y, scale, bias, mean, var, outs[4];
  BatchNormLayout l;
  double eps, momentum;
  bool unbiased, update;
  std::shared_ptr<BatchNormScratch> s;

  void operator()() const {
    auto [a, b, m, v, rm, rv] = std::tie(s->v[0], s->v[1], s->v[2], s->v[3], s->v[4], s->v[5]);
    readBatchNormParam(scale, a), readBatchNormParam(bias, b);
    const T *xp = x.data<T>();
    T *yp = y.data<T>();
    const BatchNormLayout lay = l;
    const double e = eps;
    double *ap = a.data(), *bp = b.data(), *mp = m.data(), *vp = v.data();
    popx::Opx::parallelFor(l.channels, [=](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        batchNormMoments(xp, lay, c, mp[c], vp[c]);
        const double k = ap[c] / std::sqrt(vp[c] + e);
        batchNormApply(xp, yp, lay, c, k, bp[c] - mp[c] * k);
      }
    }, l.grain());
    readBatchNormParam(mean, rm), readBatchNormParam(var, rv);
    const double bessel = unbiased && l.count() > 1 ? double(l.count()) / double(l.count() - 1) : 1.0;
    for (int64_t c = 0; c < l.channels; ++c) {
      rm[c] = rm[c] * momentum + m[c] * (1 - momentum);
      rv[c] = rv[c] * momentum + v[c] * bessel * (1 - momentum);
    }
    writeBatchNormParam(rm, outs[0]), writeBatchNormParam(rv, outs[1]);
    writeBatchNormParam(m, outs[2]), writeBatchNormParam(v, outs[3]);
    if (update) writeBatchNormParam(rm, mean), writeBatchNormParam(rv, var);
  }
};

class BatchNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<BatchNormOp>();
    const BatchNormLayout l = batchNormLayout(inInfo(0), inInfo(1));
    const double eps = op.attr<Attributes::Float>("epsilon", 1e-5f);
    auto scratch = std::make_shared<BatchNormScratch>(l.channels);
    auto view = [&](OutIndex o) { return hasOutput(o) ? getOutTensor(o) : popx::TensorView(); };
    dispatchFloat(inInfo(0).dataType(), [&](auto tag) {
      using T = decltype(tag);
      if (!op.training()) {
        prog.add(BatchNormInferStep<T>{getInTensor(0), getOutTensor(0), getInTensor(1), getInTensor(2),
                                       getInTensor(3), getInTensor(4), l, eps, scratch});
        return;
      }
      prog.add(BatchNormTrainStep<T>{getInTensor(0), getOutTensor(0), getInTensor(1), getInTensor(2), getInTensor(3),
                                     getInTensor(4), {view(1), view(2), view(3), view(4)}, l, eps,
                                     op.attr<Attributes::Float>("momentum", 0.9f), op.unbiasedRunningVar(),
                                     op.updatesVariables(), scratch});
    });
  }
};

/// Inputs dY, X, scale (training) plus mean, var (inference); outputs dX, dscale, dB.
template <class T> struct BatchNormGradStep {
  popx::TensorView dy, x, scale, mean, var, dx, dscale, dbias;
  BatchNormLayout l;
  double eps;
  std::shared_ptr<BatchNormScratch> s;

  void operator()() const {
    auto [a, m, v, ds, db] = std::tie(s->v[0], s->v[1], s->v[2], s->v[3], s->v[4]);
    const bool training = !mean.raw();
    readBatchNormParam(scale, a);
    if (!training) readBatchNormParam(mean, m), readBatchNormParam(var, v);
    const T *xp = x.data<T>(), *gp = dy.data<T>();
    T *dxp = dx.data<T>();
    const BatchNormLayout lay = l;
    const double e = eps, count = static_cast<double>(l.count());
    double *ap = a.data(), *mp = m.data(), *vp = v.data(), *dsp = ds.data(), *dbp = db.data();
    popx::Opx::parallelFor(l.channels, [=](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        if (training) batchNormMoments(xp, lay, c, mp[c], vp[c]);
        const double r = 1.0 / std::sqrt(vp[c] + e), mu = mp[c];
        double sdy = 0, sdyx = 0;
        for (int64_t n = 0; n < lay.batch; ++n) {
          const int64_t off = (n * lay.channels + c) * lay.inner;
          for (int64_t i = 0; i < lay.inner; ++i) {
            const double g = static_cast<double>(gp[off + i]);
            sdy += g, sdyx += g * (static_cast<double>(xp[off + i]) - mu) * r;
          }
        }
        dsp[c] = sdyx, dbp[c] = sdy;
        const double k = ap[c] * r;
        // training dx = k (dy - mean(dy) - xh mean(dy xh)), written as kg dy + kx x + k0
        const double mdy = training ? sdy / count : 0, mdyx = training ? sdyx / count : 0;
        using Acc = compute_t<T>;
        const Acc kg = static_cast<Acc>(k), kx = static_cast<Acc>(-k * mdyx * r),
                  k0 = static_cast<Acc>(-k * mdy + k * mdyx * r * mu);
        for (int64_t n = 0; n < lay.batch; ++n) {
          const int64_t off = (n * lay.channels + c) * lay.inner;
          for (int64_t i = 0; i < lay.inner; ++i)
            dxp[off + i] = static_cast<T>(kg * static_cast<Acc>(gp[off + i]) + kx * static_cast<Acc>(xp[off + i]) + k0);
        }
      }
    }, l.grain());
    writeBatchNormParam(ds, dscale), writeBatchNormParam(db, dbias);
  }
};

class BatchNormGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const BatchNormLayout l = batchNormLayout(inInfo(1), inInfo(2));
    const double eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    auto scratch = std::make_shared<BatchNormScratch>(l.channels);
    auto in = [&](InIndex i) { return hasInput(i) ? getInTensor(i) : popx::TensorView(); };
    dispatchFloat(inInfo(1).dataType(), [&](auto tag) {
      using T = decltype(tag);
      prog.add(BatchNormGradStep<T>{getInTensor(0), getInTensor(1), getInTensor(2), in(3), in(4), getOutTensor(0),
                                    getOutTensor(1), getOutTensor(2), l, eps, scratch});
    });
  }
};

} // namespace
static popx::OpxCreator<BatchNormOpx> batchNormOpxCreator({onnxOp("BatchNormalization"),
                                                           graphcoreOp("BatchNormalization")});
static popx::OpxCreator<BatchNormGradOpx> batchNormGradOpxCreator(internalOp("BatchNormalizationGrad"));
} // namespace popart::cpu
