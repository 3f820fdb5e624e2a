// Normalisation kernels. Instance/Layer/MeanVariance: rows of n contiguous
// elements, mean and variance in double (two passes), rows split across threads;
// MVN over non-trailing axes transposes them to the end first. LpNormalization and
// LRN walk lanes along one axis (LRN: a sliding window of squares over channels).
#include "ops/normalization.hpp"
#include "ops/shape_util.hpp"
#include "popart/cpu/kernel.hpp"
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "strided_copy.hpp"
#include <cmath>
#include <memory>

namespace popart::cpu {
namespace {

/// Population mean and variance of x[0], x[stride], .. (n values).
template <class T> void normRowMoments(const T *x, int64_t n, double &mean, double &var, int64_t stride = 1) {
  double s = 0, v = 0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i * stride]);
  mean = n > 0 ? s / static_cast<double>(n) : 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i * stride]) - mean;
    v += d * d;
  }
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

class LayerNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<LayerNormOp>();
    const Shape &s = inShape(0), norm(s.begin() + op.axis(), s.end());
    const int64_t rows = shapeutil::product(s, 0, op.axis()), n = shapeutil::product(norm, 0, norm.size());
    const double eps = op.attr<Attributes::Float>("epsilon", 1e-5f);
    auto si = std::make_shared<const std::vector<int64_t>>(normBroadcastIndex(inShape(1), norm));
    auto bi = std::make_shared<const std::vector<int64_t>>(hasInput(2) ? normBroadcastIndex(inShape(2), norm)
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
            double m, var;
            normRowMoments(xp + r * n, n, m, var);
            const double is = 1.0 / std::sqrt(var + eps);
            if (mp) mp[r] = static_cast<float>(m);
            if (ip) ip[r] = static_cast<float>(is);
            using C = compute_t<T>;
            const C cm = static_cast<C>(m), cis = static_cast<C>(is);
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

class MeanVarianceNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &axes = getOp<MeanVarianceNormOp>().axes();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const Shape &s = x.shape();
    std::vector<int64_t> perm;  // kept axes, then reduced axes
    for (int64_t a = 0; a < x.rank(); ++a)
      if (!std::binary_search(axes.begin(), axes.end(), a)) perm.push_back(a);
    const int64_t kept = static_cast<int64_t>(perm.size());
    perm.insert(perm.end(), axes.begin(), axes.end());
    Shape ps;
    std::vector<int64_t> src;
    const auto st = rowMajorStrides(s);
    for (int64_t a : perm) ps.push_back(s[a]), src.push_back(st[a]);
    const int64_t rows = shapeutil::product(ps, 0, kept), n = shapeutil::product(ps, kept, ps.size());
    const bool trailing = std::is_sorted(perm.begin(), perm.end());
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (trailing) {
        prog.add([=] { normMvnRows(x.data<T>(), y.data<T>(), rows, n); });
        return;
      }
      std::vector<int64_t> back(s.size());  // strides of the permuted buffer, per original axis
      const auto pst = rowMajorStrides(ps);
      for (size_t k = 0; k < perm.size(); ++k) back[perm[k]] = pst[k];
      auto in = std::make_shared<StridedCopy>(ps, src, pst, 0, 0, sizeof(T));
      auto out = std::make_shared<StridedCopy>(s, back, st, 0, 0, sizeof(T));
      popx::TensorView t0 = createTensor(x.info()), t1 = createTensor(x.info());
      prog.add([=] {
        in->run(x.raw(), t0.raw());
        normMvnRows(t0.data<T>(), t1.data<T>(), rows, n);
        out->run(t1.raw(), y.raw());
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

} // namespace
POPART_REGISTER_KERNEL(onnxOp("InstanceNormalization"), instanceNormKernel);
POPART_REGISTER_KERNEL(onnxOp("LpNormalization"), lpNormKernel);
POPART_REGISTER_KERNEL(onnxOp("LRN"), lrnKernel);
static popx::OpxCreator<LayerNormOpx> POPART_UNIQUE_NAME(layerNormOpxCreator_)(onnxOp("LayerNormalization"));
static popx::OpxCreator<MeanVarianceNormOpx> POPART_UNIQUE_NAME(mvnOpxCreator_)(onnxOp("MeanVarianceNormalization"));
} // namespace popart::cpu
