// Loss kernels: Nll, L1, IdentityLoss and their gradients (reduction 0 Sum,
// 1 Mean, 2 NoReduction; sums accumulate in double).
#include "dispatch.hpp"
#include "ops/loss_reduction.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <array>
#include <cmath>

namespace popart::cpu {
namespace {

int64_t reduction(const KernelContext &ctx) { return lossReduction(ctx.op()); }

int64_t labelAt(const popx::TensorView &v, int64_t i) {
  switch (v.dtype()) {
  case DataType::INT32: return v.data<int32_t>()[i];
  case DataType::UINT32: return v.data<uint32_t>()[i];
  default: return v.data<int64_t>()[i];
  }
}

struct NllShape {
  int64_t rows, classes, ignore;
  bool hasIgnore, logProb;
};

NllShape nllShape(const KernelContext &ctx, const TensorInfo &probs) {
  const Op &op = ctx.op();
  int64_t classes = probs.shape().back();
  return {classes ? probs.nelms() / classes : 0, classes, op.attr<Attributes::Int>("ignoreIndex", -1),
          op.attributes().hasAttribute("ignoreIndex"), op.attr<Attributes::Int>("inputIsLogProbability", 0) != 0};
}

int64_t checkedLabel(const NllShape &s, int64_t label, int64_t row) {
  if (label < 0 || label >= s.classes)
    throw error("label {} at position {} is outside [0, {})", label, row, s.classes);
  return label;
}

void nllFwd(KernelContext &ctx) {
  NllShape s = nllShape(ctx, ctx.inInfo(0));
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto p = ctx.in<T>(0);
    auto out = ctx.out<T>(0);
    double total = 0;
    int64_t counted = 0;
    const int64_t red = reduction(ctx);
    for (int64_t r = 0; r < s.rows; ++r) {
      int64_t label = labelAt(ctx.inView(1), r);
      double v = 0;
      if (!(s.hasIgnore && label == s.ignore)) {
        double x = p[r * s.classes + checkedLabel(s, label, r)];
        v = s.logProb ? -x : -std::log(x);
        ++counted;
      }
      if (red == 2) out[r] = T(v);
      total += v;
    }
    if (red == 0) out[0] = T(total);
    if (red == 1) out[0] = T(counted ? total / counted : 0.0);
  });
}

void nllGrad(KernelContext &ctx) {
  NllShape s = nllShape(ctx, ctx.inInfo(1));
  dispatchFloat(ctx.inInfo(1).dataType(), [&](auto tag) {
    using T = decltype(tag);
    auto dl = ctx.in<T>(0);
    auto p = ctx.in<T>(1);
    auto dp = ctx.out<T>(0);
    for (auto &v : dp) v = T(0.0f);
    int64_t counted = 0;
    for (int64_t r = 0; r < s.rows; ++r) counted += !(s.hasIgnore && labelAt(ctx.inView(2), r) == s.ignore);
    const int64_t red = reduction(ctx);
    double scale = red == 1 ? (counted ? 1.0 / counted : 0.0) : 1.0;
    for (int64_t r = 0; r < s.rows; ++r) {
      int64_t label = labelAt(ctx.inView(2), r);
      if (s.hasIgnore && label == s.ignore) continue;
      int64_t at = r * s.classes + checkedLabel(s, label, r);
      double g = (red == 2 ? double(dl[r]) : double(dl[0])) * scale;
      dp[at] = T(s.logProb ? -g : -g / double(p[at]));
    }
  });
}

// Reduces per-element values f(x_i) into the loss output: partial sums over at
// most 64 pieces (in parallel) added in piece order, so the result depends on the
// size only, not on the thread count.
template <class T, class F> void reduceInto(KernelContext &ctx, F f) {
  auto x = ctx.in<T>(0);
  auto out = ctx.out<T>(0);
  const int64_t n = x.size(), red = reduction(ctx), pieces = std::min<int64_t>(64, (n + 4095) / 4096);
  const T *xp = x.data();
  T *op = out.data();
  std::array<double, 64> partial{};
  popx::Opx::parallelFor(pieces, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      double total = 0;
      for (int64_t i = n * p / pieces; i < n * (p + 1) / pieces; ++i) {
        double v = f(double(xp[i]));
        if (red == 2) op[i] = T(v);
        total += v;
      }
      partial[static_cast<size_t>(p)] = total;
    }
  }, 2);
  double total = 0;
  for (int64_t p = 0; p < pieces; ++p) total += partial[static_cast<size_t>(p)];
  if (red == 0) op[0] = T(total);
  if (red == 1) op[0] = T(n ? total / n : 0.0);
}

// dx_i = dL (or dL_i) * scale * f'(x_i).
template <class T, class F> void spreadGrad(KernelContext &ctx, F fprime) {
  auto dl = ctx.in<T>(0);
  auto x = ctx.in<T>(1);
  auto dx = ctx.out<T>(0);
  const int64_t n = x.size(), red = reduction(ctx);
  const double scale = red == 1 && n ? 1.0 / n : 1.0, dl0 = double(dl[0]);
  const T *dlp = dl.data(), *xp = x.data();
  T *dxp = dx.data();
  popx::Opx::parallelFor(n, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) dxp[i] = T((red == 2 ? double(dlp[i]) : dl0) * scale * fprime(double(xp[i])));
  }, 16384);
}

void l1Fwd(KernelContext &ctx) {
  double lambda = ctx.op().attr<Attributes::Float>("lambda");
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    reduceInto<decltype(tag)>(ctx, [lambda](double x) { return lambda * std::fabs(x); });
  });
}

void l1Grad(KernelContext &ctx) {
  double lambda = ctx.op().attr<Attributes::Float>("lambda");
  dispatchFloat(ctx.inInfo(1).dataType(), [&](auto tag) {
    spreadGrad<decltype(tag)>(ctx, [lambda](double x) { return x > 0 ? lambda : (x < 0 ? -lambda : 0.0); });
  });
}

void identityLossFwd(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) { reduceInto<decltype(tag)>(ctx, [](double x) { return x; }); });
}

void identityLossGrad(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(1).dataType(), [&](auto tag) { spreadGrad<decltype(tag)>(ctx, [](double) { return 1.0; }); });
}

} // namespace
POPART_REGISTER_KERNEL(graphcoreOp("Nll"), nllFwd);
POPART_REGISTER_KERNEL(internalOp("NllGrad"), nllGrad);
POPART_REGISTER_KERNEL(graphcoreOp("L1"), l1Fwd);
POPART_REGISTER_KERNEL(internalOp("L1Grad"), l1Grad);
POPART_REGISTER_KERNEL(graphcoreOp("IdentityLoss"), identityLossFwd);
POPART_REGISTER_KERNEL(internalOp("IdentityLossGrad"), identityLossGrad);
} // namespace popart::cpu
