// GroupNormalization forward and gradient, also the gradient of InstanceNormalization (one channel per group);
// formulas in ops/groupnorm.cpp. Group (n, g) is one contiguous row of C / G * D values: rows in parallel, moments
// in double (two passes). The gradient's per-channel sums (dscale, dbias) run channels in parallel, reusing each
// row's mean and invstd; parameters of the per-group form (ai.onnx 18) are indexed by c / (C / G).
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <memory>

namespace popart::cpu {
namespace {

struct GroupNormLayout {
  int64_t batch, channels, groups, inner;
  bool paramPerGroup;
  int64_t perGroup() const { return channels / groups; }
  int64_t rowLength() const { return perGroup() * inner; }
  int64_t rows() const { return batch * groups; }
  int64_t param(int64_t c) const { return paramPerGroup ? c / perGroup() : c; }
  int64_t grain() const { return std::max<int64_t>(1, 32768 / std::max<int64_t>(rowLength(), 1)); }
};

/// From X and scale; InstanceNormalization has no num_groups (one group per channel).
GroupNormLayout groupNormLayout(const Op &op, const TensorInfo &x, const TensorInfo &scale) {
  const int64_t c = x.dim(1);
  const int64_t g = op.opid.type.rfind("InstanceNormalization", 0) == 0 ? c : op.attr<Attributes::Int>("num_groups");
  return {x.dim(0), c, g, x.nelms() / std::max<int64_t>(x.dim(0) * c, 1), scale.nelms() != c};
}

template <class T> void groupNormMoments(const T *x, int64_t n, double &mean, double &invstd, double eps) {
  double s = 0, q = 0;
  for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  mean = n > 0 ? s / static_cast<double>(n) : 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    q += d * d;
  }
  invstd = 1.0 / std::sqrt((n > 0 ? q / static_cast<double>(n) : 0.0) + eps);
}

/// Per-run double copies of the parameters and per-row / per-channel partial results, sized in grow().
struct GroupNormScratch {
  GroupNormScratch(const GroupNormLayout &l, int64_t params)
      : scale(params), bias(params), mean(l.rows()), invstd(l.rows()), dscale(l.channels), dbias(l.channels) {}
  std::vector<double> scale, bias, mean, invstd, dscale, dbias;
};

template <class T> void groupNormRead(const popx::TensorView &t, std::vector<double> &out) {
  const T *p = t.data<T>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
}

template <class T> struct GroupNormStep {
  popx::TensorView x, scale, bias, y, mean, invstd;  // mean, invstd: optional outputs
  GroupNormLayout l;
  double eps;
  std::shared_ptr<GroupNormScratch> s;

  void operator()() const {
    groupNormRead<T>(scale, s->scale), groupNormRead<T>(bias, s->bias);
    const double *sp = s->scale.data(), *bp = s->bias.data();
    const T *xp = x.data<T>();
    T *yp = y.data<T>(), *mp = mean.raw() ? mean.data<T>() : nullptr, *ip = invstd.raw() ? invstd.data<T>() : nullptr;
    const GroupNormLayout lay = l;
    const double e = eps;
    popx::Opx::parallelFor(l.rows(), [=](int64_t r0, int64_t r1) {
      using Acc = compute_t<T>;
      for (int64_t r = r0; r < r1; ++r) {
        double m, is;
        groupNormMoments(xp + r * lay.rowLength(), lay.rowLength(), m, is, e);
        if (mp) mp[r] = static_cast<T>(m);
        if (ip) ip[r] = static_cast<T>(is);
        for (int64_t k = 0; k < lay.perGroup(); ++k) {
          const int64_t p = lay.param((r % lay.groups) * lay.perGroup() + k);
          const Acc a = static_cast<Acc>(sp[p] * is), b = static_cast<Acc>(bp[p] - m * sp[p] * is);
          const int64_t off = r * lay.rowLength() + k * lay.inner;
          for (int64_t i = 0; i < lay.inner; ++i) yp[off + i] = static_cast<T>(static_cast<Acc>(xp[off + i]) * a + b);
        }
      }
    }, l.grain());
  }
};

class GroupNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const GroupNormLayout l = groupNormLayout(*op_p, inInfo(0), inInfo(1));
    const double eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    auto scratch = std::make_shared<GroupNormScratch>(l, inInfo(1).nelms());
    auto view = [&](OutIndex o) { return hasOutput(o) ? getOutTensor(o) : popx::TensorView(); };
    dispatchFloat(inInfo(0).dataType(), [&](auto tag) {
      using T = decltype(tag);
      prog.add(GroupNormStep<T>{getInTensor(0), getInTensor(1), getInTensor(2), getOutTensor(0), view(1), view(2), l,
                                eps, scratch});
    });
  }
};

/// dX per row (group); the row's mean and invstd are kept for the per-channel sums.
template <class T> void groupNormGradRows(const T *dy, const T *x, T *dx, const GroupNormLayout &l, double eps,
                                          GroupNormScratch &s) {
  const double *sp = s.scale.data();
  double *mp = s.mean.data(), *ip = s.invstd.data();
  const GroupNormLayout lay = l;
  popx::Opx::parallelFor(l.rows(), [=](int64_t r0, int64_t r1) {
    const int64_t n = lay.rowLength();
    for (int64_t r = r0; r < r1; ++r) {
      double m, is, sg = 0, sgx = 0;
      groupNormMoments(x + r * n, n, m, is, eps);
      mp[r] = m, ip[r] = is;
      const int64_t c0 = (r % lay.groups) * lay.perGroup();
      for (int64_t k = 0; k < lay.perGroup(); ++k) {  // channel c0 + k: elements [k * inner, (k + 1) * inner)
        const double gamma = sp[lay.param(c0 + k)];
        for (int64_t j = k * lay.inner; j < (k + 1) * lay.inner; ++j) {
          const double g = static_cast<double>(dy[r * n + j]) * gamma;
          sg += g, sgx += g * (static_cast<double>(x[r * n + j]) - m) * is;
        }
      }
      const double mg = sg / static_cast<double>(n), mgx = sgx / static_cast<double>(n);
      for (int64_t k = 0; k < lay.perGroup(); ++k) {
        const double gamma = sp[lay.param(c0 + k)];
        for (int64_t j = k * lay.inner; j < (k + 1) * lay.inner; ++j) {
          const double xh = (static_cast<double>(x[r * n + j]) - m) * is;
          dx[r * n + j] = static_cast<T>(is * (static_cast<double>(dy[r * n + j]) * gamma - mg - xh * mgx));
        }
      }
    }
  }, l.grain());
}

/// dscale, dbias per channel, then summed into the parameter shape.
template <class T> void groupNormGradParams(const T *dy, const T *x, const GroupNormLayout &l, GroupNormScratch &s,
                                            T *dscale, T *dbias) {
  const double *mp = s.mean.data(), *ip = s.invstd.data();
  double *ds = s.dscale.data(), *db = s.dbias.data();
  const GroupNormLayout lay = l;
  popx::Opx::parallelFor(l.channels, [=](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double a = 0, b = 0;
      for (int64_t n = 0; n < lay.batch; ++n) {
        const int64_t r = n * lay.groups + c / lay.perGroup();
        const int64_t off = r * lay.rowLength() + (c % lay.perGroup()) * lay.inner;
        for (int64_t i = 0; i < lay.inner; ++i) {
          const double g = static_cast<double>(dy[off + i]);
          a += g * (static_cast<double>(x[off + i]) - mp[r]) * ip[r], b += g;
        }
      }
      ds[c] = a, db[c] = b;
    }
  }, std::max<int64_t>(1, 32768 / std::max<int64_t>(lay.batch * lay.inner, 1)));
  std::fill(s.scale.begin(), s.scale.end(), 0.0), std::fill(s.bias.begin(), s.bias.end(), 0.0);
  for (int64_t c = 0; c < l.channels; ++c) s.scale[l.param(c)] += ds[c], s.bias[l.param(c)] += db[c];
  for (size_t p = 0; p < s.scale.size(); ++p)
    dscale[p] = static_cast<T>(s.scale[p]), dbias[p] = static_cast<T>(s.bias[p]);
}

/// Inputs dY, X, scale; outputs dX, dscale, dbias.
class GroupNormGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const GroupNormLayout l = groupNormLayout(*op_p, inInfo(1), inInfo(2));
    const double eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    auto scratch = std::make_shared<GroupNormScratch>(l, inInfo(2).nelms());
    popx::TensorView dy = getInTensor(0), x = getInTensor(1), scale = getInTensor(2), dx = getOutTensor(0),
                     ds = getOutTensor(1), db = getOutTensor(2);
    dispatchFloat(inInfo(1).dataType(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        groupNormRead<T>(scale, scratch->scale);
        groupNormGradRows(dy.data<T>(), x.data<T>(), dx.data<T>(), l, eps, *scratch);
        groupNormGradParams(dy.data<T>(), x.data<T>(), l, *scratch, ds.data<T>(), db.data<T>());
      });
    });
  }
};

} // namespace
static popx::OpxCreator<GroupNormOpx> groupNormOpxCreator({graphcoreOp("GroupNormalization"),
                                                           onnxOp("GroupNormalization")});
static popx::OpxCreator<GroupNormGradOpx> groupNormGradOpxCreator({internalOp("GroupNormalizationGrad"),
                                                                   internalOp("InstanceNormalizationGrad")});
} // namespace popart::cpu
