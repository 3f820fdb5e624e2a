// Normalisation kernels and gradients (formulas beside each). Instance/Layer/RMS/MeanVariance:
// rows of n contiguous elements, mean and variance in double (two passes), rows split across
// threads; MVN over non-trailing axes transposes them to the end first. LpNormalization and
// LRN walk lanes along one axis (LRN: a sliding window of squares over channels).
// InstanceNormalization's gradient is in groupnorm.cpp.
#include "ops/normalization.hpp"
#include "ops/shape_util.hpp"
#include "popart/cpu/kernel.hpp"
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "strided_copy.hpp"
#include "vmath.hpp"
#include <cmath>
#include <memory>
#include <type_traits>

namespace popart::cpu {
namespace {

/// Population mean and variance of x[0], x[stride], .. (n values).
/// Four running sums (independent dependency chains, so the adds pipeline) of f(x[i * stride]).
template <class T, class F> double normRowSum(const T *x, int64_t n, int64_t stride, F &&f) {
  double acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) acc[k] += f(static_cast<double>(x[(i + k) * stride]));
  for (; i < n; ++i) acc[0] += f(static_cast<double>(x[i * stride]));
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

template <class T> void normRowMoments(const T *x, int64_t n, double &mean, double &var, int64_t stride = 1) {
  const double s = normRowSum(x, n, stride, [](double v) { return v; });
  mean = n > 0 ? s / static_cast<double>(n) : 0.0;
  const double m = mean, v = normRowSum(x, n, stride, [m](double e) { return (e - m) * (e - m); });
  var = n > 0 ? v / static_cast<double>(n) : 0.0;
}

/// f(begin, end) over `rows` rows of n elements, about 32k elements per task.
template <class F> void normForRows(int64_t rows, int64_t n, F &&f) {
  popx::Opx::parallelFor(rows, f, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, n)));
}

void instanceNormKernel(KernelContext &ctx) {
  const Shape &s = ctx.inInfo(0).shape();
  const int64_t c = s[1], n = shapeutil::product(s, 2, s.size());
  const double eps = ctx.op().attr<Attributes::Float>("epsilon", 1e-5f);
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = ctx.in<T>(0).data(), *scale = ctx.in<T>(1).data(), *bias = ctx.in<T>(2).data();
    T *y = ctx.out<T>(0).data();
    normForRows(s[0] * c, n, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        double mean, var;
        normRowMoments(x + r * n, n, mean, var);
        const double k = static_cast<double>(scale[r % c]) / std::sqrt(var + eps);
        const compute_t<T> kk = static_cast<compute_t<T>>(k),
                           off = static_cast<compute_t<T>>(static_cast<double>(bias[r % c]) - mean * k);
        for (int64_t i = 0; i < n; ++i)
          y[r * n + i] = static_cast<T>(static_cast<compute_t<T>>(x[r * n + i]) * kk + off);
      }
    });
  });
}

/// For each element of `target`, the flat index of the element of `s` it broadcasts from;
/// empty when s == target.
std::vector<int64_t> normBroadcastIndex(const Shape &s, const Shape &target) {
  if (s == target) return {};
  std::vector<int64_t> idx(static_cast<size_t>(shapeutil::product(target, 0, target.size())));
  const auto st = rowMajorStrides(s);
  const size_t lead = target.size() - s.size();
  for (size_t f = 0; f < idx.size(); ++f) {
    int64_t rem = static_cast<int64_t>(f), off = 0;
    for (size_t a = target.size(); a-- > lead;) {
      const int64_t i = rem % target[a];
      rem /= target[a];
      if (s[a - lead] != 1) off += i * st[a - lead];
    }
    idx[f] = off;
  }
  return idx;
}

/// Mean and 1 / sqrt(var + eps) of one row (LayerNormalization), or 0 and 1 / sqrt(mean(x^2) + eps) (RMS).
template <class T> void normRowStats(const T *x, int64_t n, bool rms, double eps, double &mean, double &inv) {
  double var = 0;
  if (rms) {
    for (int64_t i = 0; i < n; ++i) var += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    mean = 0, var = n > 0 ? var / static_cast<double>(n) : 0.0;
  } else {
    normRowMoments(x, n, mean, var);
  }
  inv = 1.0 / std::sqrt(var + eps);
}

/// Rows and row length of a LayerNormalization/RMSNormalization(Grad) over X of shape s.
struct NormRows {
  int64_t axis, rows, n;
  NormRows(const Op &op, const Shape &s) {
    axis = shapeutil::normaliseAxis(op.attr<Attributes::Int>("axis", -1), static_cast<int64_t>(s.size()));
    const size_t a = static_cast<size_t>(axis);
    rows = shapeutil::product(s, 0, a), n = shapeutil::product(s, a, s.size());
  }
  Shape norm(const Shape &s) const { return Shape(s.begin() + axis, s.end()); }
};

/// LayerNormalization (inputs X, Scale, B; outputs Y, Mean, InvStdDev) and RMSNormalization (X, Scale; Y).
class LayerNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &s = inShape(0);
    const NormRows nr(*op_p, s);
    const int64_t rows = nr.rows, n = nr.n;
    const bool rms = op_p->opid.type == "RMSNormalization";
    const double eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    auto si = std::make_shared<const std::vector<int64_t>>(normBroadcastIndex(inShape(1), nr.norm(s)));
    auto bi = std::make_shared<const std::vector<int64_t>>(hasInput(2) ? normBroadcastIndex(inShape(2), nr.norm(s))
                                                                        : std::vector<int64_t>{});
    popx::TensorView x = getInTensor(0), sc = getInTensor(1), b = hasInput(2) ? getInTensor(2) : popx::TensorView(),
                     y = getOutTensor(0), mean = hasOutput(1) ? getOutTensor(1) : popx::TensorView(),
                     inv = hasOutput(2) ? getOutTensor(2) : popx::TensorView();
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const T *xp = x.data<T>(), *sp = sc.data<T>(), *bp = b.raw() ? b.data<T>() : nullptr;
        T *yp = y.data<T>();
        float *mp = mean.raw() ? mean.data<float>() : nullptr, *ip = inv.raw() ? inv.data<float>() : nullptr;
        normForRows(rows, n, [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            double m, is;
            normRowStats(xp + r * n, n, rms, eps, m, is);
            if (mp) mp[r] = static_cast<float>(m);
            if (ip) ip[r] = static_cast<float>(is);
            using C = compute_t<T>;
            const C cm = static_cast<C>(m), cis = static_cast<C>(is);
            if (si->empty() && bi->empty()) {  // scale and B of the normalised shape: a loop that vectorises
              const T *xr = xp + r * n;
              T *yr = yp + r * n;
              if (bp)
                for (int64_t j = 0; j < n; ++j)
                  yr[j] = static_cast<T>((static_cast<C>(xr[j]) - cm) * cis * static_cast<C>(sp[j]) + static_cast<C>(bp[j]));
              else
                for (int64_t j = 0; j < n; ++j) yr[j] = static_cast<T>((static_cast<C>(xr[j]) - cm) * cis * static_cast<C>(sp[j]));
              continue;
            }
            for (int64_t j = 0; j < n; ++j) {
              C v = (static_cast<C>(xp[r * n + j]) - cm) * cis * static_cast<C>(sp[si->empty() ? j : (*si)[j]]);
              if (bp) v += static_cast<C>(bp[bi->empty() ? j : (*bi)[j]]);
              yp[r * n + j] = static_cast<T>(v);
            }
          }
        });
      });
    });
  }
};

/// out[idx[j]] += v[j] summed in acc[m] (out = v when idx is empty: same shape).
template <class T>
void normReduceTo(const double *v, int64_t n, const std::vector<int64_t> &idx, T *out, int64_t m, double *acc) {
  if (idx.empty()) {
    for (int64_t j = 0; j < n; ++j) out[j] = static_cast<T>(v[j]);
    return;
  }
  std::fill(acc, acc + m, 0.0);
  for (int64_t j = 0; j < n; ++j) acc[idx[j]] += v[j];
  for (int64_t k = 0; k < m; ++k) out[k] = static_cast<T>(acc[k]);
}
/// cs[j], cb[j]: the pieces' column sums of dY * xh and dY added in piece order (independent of the thread count).
void sumLayerNormPieces(const double *part, int64_t pieces, int64_t n, double *cs, double *cb) {
  popx::Opx::parallelFor(n, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) {
      double a = 0, b = 0;
      for (int64_t p = 0; p < pieces; ++p) a += part[2 * p * n + j], b += part[2 * p * n + n + j];
      cs[j] = a, cb[j] = b;
    }
  }, 4096);
}

/// One row of a float LayerNormalizationGrad / RMSNormalizationGrad whose scale has the row's shape: dx, and the
/// row's dY * xh and dY added to the column sums a and b, in one pass after the row's two sums (all in double,
/// vectorised per vector unit).
POPART_SIMD_CLONES void layerNormGradRowF32(const float *__restrict g, const float *__restrict x,
                                            const float *__restrict s, float *__restrict dx, int64_t n, double m,
                                            double is, bool rms, double *__restrict a, double *__restrict b) {
  double sg = 0, sgx = 0;
#pragma omp simd reduction(+ : sg, sgx)
  for (int64_t j = 0; j < n; ++j) {
    const double gj = static_cast<double>(g[j]) * static_cast<double>(s[j]);
    sg += gj, sgx += gj * ((static_cast<double>(x[j]) - m) * is);
  }
  sg = rms ? 0.0 : sg / static_cast<double>(n), sgx /= static_cast<double>(n);
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    const double gj = static_cast<double>(g[j]), xh = (static_cast<double>(x[j]) - m) * is;
    dx[j] = static_cast<float>(is * (gj * static_cast<double>(s[j]) - sg - xh * sgx));
    a[j] += gj * xh, b[j] += gj;
  }
}

/// LayerNormalizationGrad / RMSNormalizationGrad: inputs dY, X, Scale; outputs dX, dScale (, dB). Rows in
/// parallel give dX and keep their mean and invstd; columns in parallel then sum dY * xh and dY, reduced to
/// the parameter shapes.
class LayerNormGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &s = inShape(1);
    const NormRows nr(*op_p, s);
    const Shape norm = nr.norm(s);
    const int64_t rows = nr.rows, n = nr.n;
    const bool rms = op_p->opid.type == "RMSNormalizationGrad";
    const double eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    auto si = std::make_shared<const std::vector<int64_t>>(normBroadcastIndex(inShape(2), norm));
    auto bi = std::make_shared<const std::vector<int64_t>>(hasOutput(2) ? normBroadcastIndex(outShape(2), norm)
                                                                         : std::vector<int64_t>{});
    // Column sums over fixed pieces of rows (added in piece order: independent of the thread count).
    const int64_t pieces = std::min<int64_t>(rows, 16);
    auto stats = std::make_shared<std::vector<double>>(static_cast<size_t>(2 * rows + 3 * n + 2 * pieces * n));
    popx::TensorView dy = getInTensor(0), x = getInTensor(1), sc = getInTensor(2), dx = getOutTensor(0),
                     ds = getOutTensor(1), db = hasOutput(2) ? getOutTensor(2) : popx::TensorView();
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const T *g = dy.data<T>(), *xp = x.data<T>(), *sp = sc.data<T>();
        T *dxp = dx.data<T>();
        double *mean = stats->data(), *inv = mean + rows, *cs = inv + rows, *cb = cs + n;
        double *part = cb + 2 * n;  // piece p: sums of dY * xh at [2pn, 2pn + n), of dY after them
        if constexpr (std::is_same_v<T, float>) {
          if (si->empty()) {  // one pass per row over dY and X after its sums, column sums while the row is hot
            popx::Opx::parallelFor(pieces, [&](int64_t lo, int64_t hi) {
              for (int64_t p = lo; p < hi; ++p) {
                double *a = part + 2 * p * n, *b = a + n;
                std::fill(a, a + 2 * n, 0.0);
                for (int64_t r = rows * p / pieces; r < rows * (p + 1) / pieces; ++r) {
                  double m, is;
                  normRowStats(xp + r * n, n, rms, eps, m, is);
                  layerNormGradRowF32(g + r * n, xp + r * n, sp, dxp + r * n, n, m, is, rms, a, b);
                }
              }
            }, 1);
            sumLayerNormPieces(part, pieces, n, cs, cb);
            normReduceTo(cs, n, *si, ds.data<T>(), ds.nelms(), cb + n);
            if (db.raw()) normReduceTo(cb, n, *bi, db.data<T>(), db.nelms(), cb + n);
            return;
          }
        }
        auto scale = [&](int64_t j) { return static_cast<double>(sp[si->empty() ? j : (*si)[j]]); };
        normForRows(rows, n, [&](int64_t lo, int64_t hi) {
          for (int64_t r = lo; r < hi; ++r) {
            double m, is, sg = 0, sgx = 0;
            normRowStats(xp + r * n, n, rms, eps, m, is);
            mean[r] = m, inv[r] = is;
            for (int64_t j = 0; j < n; ++j) {
              const double gj = static_cast<double>(g[r * n + j]) * scale(j);
              sg += gj, sgx += gj * (static_cast<double>(xp[r * n + j]) - m) * is;
            }
            sg = rms ? 0.0 : sg / static_cast<double>(n), sgx /= static_cast<double>(n);
            for (int64_t j = 0; j < n; ++j) {
              const double xh = (static_cast<double>(xp[r * n + j]) - m) * is;
              dxp[r * n + j] = static_cast<T>(is * (static_cast<double>(g[r * n + j]) * scale(j) - sg - xh * sgx));
            }
          }
        });
        popx::Opx::parallelFor(pieces, [&](int64_t lo, int64_t hi) {
          for (int64_t p = lo; p < hi; ++p) {
            double *a = part + 2 * p * n, *b = a + n;
            std::fill(a, a + 2 * n, 0.0);
            for (int64_t r = rows * p / pieces; r < rows * (p + 1) / pieces; ++r) {
              const T *gr = g + r * n, *xr = xp + r * n;
              const double m = mean[r], is = inv[r];
              for (int64_t j = 0; j < n; ++j) {
                const double gj = static_cast<double>(gr[j]);
                a[j] += gj * ((static_cast<double>(xr[j]) - m) * is), b[j] += gj;
              }
            }
          }
        }, 1);
        sumLayerNormPieces(part, pieces, n, cs, cb);
        normReduceTo(cs, n, *si, ds.data<T>(), ds.nelms(), cb + n);
        if (db.raw()) normReduceTo(cb, n, *bi, db.data<T>(), db.nelms(), cb + n);
      });
    });
  }
};

/// y = (x - mean) / (sqrt(var) + 1e-9) over rows of n contiguous elements.
template <class T> void normMvnRows(const T *x, T *y, int64_t rows, int64_t n) {
  normForRows(rows, n, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      double m, var;
      normRowMoments(x + r * n, n, m, var);
      const double k = 1.0 / (std::sqrt(var) + 1e-9);
      for (int64_t i = 0; i < n; ++i) y[r * n + i] = static_cast<T>((static_cast<double>(x[r * n + i]) - m) * k);
    }
  });
}

/// dx = k (dy - mean(dy)) - k^2 sum(dy d) d / (n s), d = x - mean, s = sqrt(var), k = 1 / (s + 1e-9).
template <class T> void normMvnGradRows(const T *dy, const T *x, T *dx, int64_t rows, int64_t n) {
  normForRows(rows, n, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      double m, var, sdy = 0, sdd = 0;
      normRowMoments(x + r * n, n, m, var);
      const double sd = std::sqrt(var), k = 1.0 / (sd + 1e-9);
      for (int64_t i = 0; i < n; ++i) {
        const double g = static_cast<double>(dy[r * n + i]);
        sdy += g, sdd += g * (static_cast<double>(x[r * n + i]) - m);
      }
      const double mdy = sdy / static_cast<double>(n), c2 = sd > 0 ? k * k * sdd / (static_cast<double>(n) * sd) : 0.0;
      for (int64_t i = 0; i < n; ++i)
        dx[r * n + i] = static_cast<T>(k * (static_cast<double>(dy[r * n + i]) - mdy) -
                                       c2 * (static_cast<double>(x[r * n + i]) - m));
    }
  });
}

/// X seen as rows of n reduced elements; when the reduced axes are not trailing, toRows / fromRows
/// permute them to the end and back (null otherwise).
struct MvnRows {
  int64_t rows = 1, n = 1;
  std::shared_ptr<StridedCopy> toRows, fromRows;
};

MvnRows mvnRows(const Op &op, const Shape &s, size_t elemSize) {
  auto axes = shapeutil::normaliseAxes(op.attr<Attributes::Ints>("axes", {0, 2, 3}), static_cast<int64_t>(s.size()));
  std::sort(axes.begin(), axes.end());
  std::vector<int64_t> perm;  // kept axes, then reduced axes
  for (int64_t a = 0; a < static_cast<int64_t>(s.size()); ++a)
    if (!std::binary_search(axes.begin(), axes.end(), a)) perm.push_back(a);
  const int64_t kept = static_cast<int64_t>(perm.size());
  perm.insert(perm.end(), axes.begin(), axes.end());
  Shape ps;
  std::vector<int64_t> src;
  const auto st = rowMajorStrides(s);
  for (int64_t a : perm) ps.push_back(s[a]), src.push_back(st[a]);
  MvnRows m;
  m.rows = shapeutil::product(ps, 0, kept), m.n = shapeutil::product(ps, kept, ps.size());
  if (std::is_sorted(perm.begin(), perm.end())) return m;
  std::vector<int64_t> back(s.size());  // strides of the permuted buffer, per original axis
  const auto pst = rowMajorStrides(ps);
  for (size_t k = 0; k < perm.size(); ++k) back[perm[k]] = pst[k];
  m.toRows = std::make_shared<StridedCopy>(ps, src, pst, 0, 0, elemSize);
  m.fromRows = std::make_shared<StridedCopy>(s, back, st, 0, 0, elemSize);
  return m;
}

class MeanVarianceNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const MvnRows m = mvnRows(*op_p, x.shape(), sizeof(T));
      if (!m.toRows) {
        prog.add([=] { normMvnRows(x.data<T>(), y.data<T>(), m.rows, m.n); });
        return;
      }
      popx::TensorView t0 = createTensor(x.info()), t1 = createTensor(x.info());
      prog.add([=] {
        m.toRows->run(x.raw(), t0.raw());
        normMvnRows(t0.data<T>(), t1.data<T>(), m.rows, m.n);
        m.fromRows->run(t1.raw(), y.raw());
      });
    });
  }
};

/// MeanVarianceNormalizationGrad: inputs dY, X; output dX.
class MeanVarianceNormGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView dy = getInTensor(0), x = getInTensor(1), dx = getOutTensor(0);
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const MvnRows m = mvnRows(*op_p, x.shape(), sizeof(T));
      if (!m.toRows) {
        prog.add([=] { normMvnGradRows(dy.data<T>(), x.data<T>(), dx.data<T>(), m.rows, m.n); });
        return;
      }
      popx::TensorView t0 = createTensor(x.info()), t1 = createTensor(x.info()), t2 = createTensor(x.info());
      prog.add([=] {
        m.toRows->run(dy.raw(), t0.raw()), m.toRows->run(x.raw(), t1.raw());
        normMvnGradRows(t0.data<T>(), t1.data<T>(), t2.data<T>(), m.rows, m.n);
        m.fromRows->run(t2.raw(), dx.raw());
      });
    });
  }
};

void lpNormKernel(KernelContext &ctx) {
  const auto &op = ctx.op<LpNormOp>();
  const AxisLanes l = axisLanes(ctx.inInfo(0).shape(), op.axis());
  const bool l1 = op.p() == 1;
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = ctx.in<T>(0).data();
    T *y = ctx.out<T>(0).data();
    forEachLane(l, [&](int64_t, int64_t base) {
      double norm = 0;
      for (int64_t k = 0; k < l.n; ++k) {
        const double v = static_cast<double>(x[base + k * l.inner]);
        norm += l1 ? std::abs(v) : v * v;
      }
      const double inv = norm == 0 ? 0.0 : 1.0 / (l1 ? norm : std::sqrt(norm));
      for (int64_t k = 0; k < l.n; ++k)
        y[base + k * l.inner] = static_cast<T>(static_cast<double>(x[base + k * l.inner]) * inv);
    });
  });
}

void lrnKernel(KernelContext &ctx) {
  const Op &op = ctx.op();
  const int64_t size = op.attr<Attributes::Int>("size");
  const double alpha = op.attr<Attributes::Float>("alpha", 1e-4f), beta = op.attr<Attributes::Float>("beta", 0.75f),
               bias = op.attr<Attributes::Float>("bias", 1.0f);
  const int64_t lo = (size - 1) / 2, hi = size / 2;  // window [c - lo, c + hi]
  const AxisLanes l = axisLanes(ctx.inInfo(0).shape(), 1);
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *x = ctx.in<T>(0).data();
    T *y = ctx.out<T>(0).data();
    forEachLane(l, [&](int64_t, int64_t base) {
      auto sq = [&](int64_t c) {
        const double v = static_cast<double>(x[base + c * l.inner]);
        return v * v;
      };
      double win = 0;
      for (int64_t c = 0; c < std::min(hi, l.n); ++c) win += sq(c);
      for (int64_t c = 0; c < l.n; ++c) {
        if (c + hi < l.n) win += sq(c + hi);
        if (c - lo - 1 >= 0) win -= sq(c - lo - 1);
        const double v = static_cast<double>(x[base + c * l.inner]);
        const double d = bias + alpha / static_cast<double>(size) * std::max(win, 0.0);
        y[base + c * l.inner] = static_cast<T>(v / std::pow(d, beta));
      }
    });
  });
}

/// LpNormalizationGrad (inputs dY, X): with y = x / N along the axis, dx = (dy - q sum(dy y)) / N,
/// q = y (p = 2) or sign(x) (p = 1); dx = 0 where N = 0.
void lpNormGradKernel(KernelContext &ctx) {
  const int64_t axis = shapeutil::normaliseAxis(ctx.op().attr<Attributes::Int>("axis", -1), ctx.inInfo(1).rank());
  const AxisLanes l = axisLanes(ctx.inInfo(1).shape(), axis);
  const bool l1 = ctx.op().attr<Attributes::Int>("p", 2) == 1;
  dispatchFloat(ctx.inInfo(1).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *dy = ctx.in<T>(0).data(), *x = ctx.in<T>(1).data();
    T *dx = ctx.out<T>(0).data();
    forEachLane(l, [&](int64_t, int64_t base) {
      double norm = 0, dot = 0;
      for (int64_t k = 0; k < l.n; ++k) {
        const double v = static_cast<double>(x[base + k * l.inner]);
        norm += l1 ? std::abs(v) : v * v;
        dot += v * static_cast<double>(dy[base + k * l.inner]);
      }
      norm = l1 ? norm : std::sqrt(norm);
      const double inv = norm == 0 ? 0.0 : 1.0 / norm, sdyy = dot * inv;
      for (int64_t k = 0; k < l.n; ++k) {
        const double v = static_cast<double>(x[base + k * l.inner]);
        const double q = l1 ? (v > 0) - (v < 0) : v * inv;
        dx[base + k * l.inner] = static_cast<T>((static_cast<double>(dy[base + k * l.inner]) - q * sdyy) * inv);
      }
    });
  });
}

/// LRNGrad (inputs dY, X), D_c = bias + alpha / size * S_c the window sum of squares:
///   dx_k = dy_k D_k^-beta - 2 alpha beta / size * x_k * sum_{c in [k - hi, k + lo]} dy_c x_c D_c^(-beta-1).
/// D is kept in a scratch tensor (same layout as X); the second window slides over the t_c terms.
class LRNGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    const int64_t size = op.attr<Attributes::Int>("size");
    const double alpha = op.attr<Attributes::Float>("alpha", 1e-4f), beta = op.attr<Attributes::Float>("beta", 0.75f),
                 bias = op.attr<Attributes::Float>("bias", 1.0f);
    const int64_t lo = (size - 1) / 2, hi = size / 2;  // window(c) = [c - lo, c + hi]
    const AxisLanes l = axisLanes(inShape(1), 1);
    auto scratch = std::make_shared<std::vector<double>>(static_cast<size_t>(inInfo(1).nelms()));
    popx::TensorView dyv = getInTensor(0), xv = getInTensor(1), dxv = getOutTensor(0);
    dispatchFloat(inInfo(1).dataType(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const T *dy = dyv.data<T>(), *x = xv.data<T>();
        T *dx = dxv.data<T>();
        double *d = scratch->data();
        forEachLane(l, [&](int64_t, int64_t base) {
          auto at = [&](const auto *p, int64_t c) { return static_cast<double>(p[base + c * l.inner]); };
          double win = 0;
          for (int64_t c = 0; c < std::min(hi, l.n); ++c) win += at(x, c) * at(x, c);
          for (int64_t c = 0; c < l.n; ++c) {  // d = D, then t = dy x D^(-beta-1)
            if (c + hi < l.n) win += at(x, c + hi) * at(x, c + hi);
            if (c - lo - 1 >= 0) win -= at(x, c - lo - 1) * at(x, c - lo - 1);
            const double dc = bias + alpha / static_cast<double>(size) * std::max(win, 0.0), p = std::pow(dc, -beta);
            dx[base + c * l.inner] = static_cast<T>(at(dy, c) * p);
            d[base + c * l.inner] = at(dy, c) * at(x, c) * p / dc;
          }
          double tw = 0;
          for (int64_t c = 0; c < std::min(lo, l.n); ++c) tw += at(d, c);
          const double k2 = 2 * alpha * beta / static_cast<double>(size);
          for (int64_t k = 0; k < l.n; ++k) {  // window [k - hi, k + lo]
            if (k + lo < l.n) tw += at(d, k + lo);
            if (k - hi - 1 >= 0) tw -= at(d, k - hi - 1);
            dx[base + k * l.inner] = static_cast<T>(at(dx, k) - k2 * at(x, k) * tw);
          }
        });
      });
    });
  }
};

} // namespace
POPART_REGISTER_KERNEL(onnxOp("InstanceNormalization"), instanceNormKernel);
POPART_REGISTER_KERNEL(onnxOp("LpNormalization"), lpNormKernel);
POPART_REGISTER_KERNEL(onnxOp("LRN"), lrnKernel);
static popx::OpxCreator<LayerNormOpx> POPART_UNIQUE_NAME(layerNormOpxCreator_)(
    std::vector<OperatorIdentifier>{onnxOp("LayerNormalization"), onnxOp("RMSNormalization")});
static popx::OpxCreator<MeanVarianceNormOpx> POPART_UNIQUE_NAME(mvnOpxCreator_)(onnxOp("MeanVarianceNormalization"));
POPART_REGISTER_KERNEL(internalOp("LpNormalizationGrad"), lpNormGradKernel);
static popx::OpxCreator<LayerNormGradOpx> POPART_UNIQUE_NAME(layerNormGradOpxCreator_)(
    std::vector<OperatorIdentifier>{internalOp("LayerNormalizationGrad"), internalOp("RMSNormalizationGrad")});
static popx::OpxCreator<MeanVarianceNormGradOpx> POPART_UNIQUE_NAME(mvnGradOpxCreator_)(
    internalOp("MeanVarianceNormalizationGrad"));
static popx::OpxCreator<LRNGradOpx> POPART_UNIQUE_NAME(lrnGradOpxCreator_)(internalOp("LRNGrad"));
} // namespace popart::cpu
