// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss kernels over x viewed
// as [N, C, D] (D = d1 * ... * dk). SoftmaxCrossEntropyLoss takes x[n, t, d] -
// logsumexp_c x[n, c, d] per (n, d), so log_prob is only written when it is an
// output. Per-sample losses go to a double scratch buffer (made in grow) and
// are summed in order; float16 is computed in float.
#include "dispatch.hpp"
#include "ops/onnx_loss.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

struct LossDims {
  int64_t n, c, d;
};

LossDims lossDims(const TensorInfo &x) {
  const int64_t n = x.shape()[0], c = x.shape()[1];
  return {n, c, n * c ? x.nelms() / (n * c) : 0};
}

/// The target at sample p as int64 (INT32 or INT64 input).
int64_t targetAt(const popx::TensorView &t, int64_t p) {
  return t.dtype() == DataType::INT32 ? t.data<int32_t>()[p] : t.data<int64_t>()[p];
}

/// log sum_c exp(x[n, c, d]), computed stably around the maximum.
template <class T> double logSumExp(const T *x, const LossDims &s, int64_t n, int64_t d) {
  const T *row = x + n * s.c * s.d + d;
  double mx = -INFINITY, sum = 0;
  for (int64_t c = 0; c < s.c; ++c) mx = std::fmax(mx, double(compute_t<T>(row[c * s.d])));
  for (int64_t c = 0; c < s.c; ++c) sum += std::exp(double(compute_t<T>(row[c * s.d])) - mx);
  return mx + std::log(sum);
}

template <class T> double at(const T *x, const LossDims &s, int64_t n, int64_t k, int64_t d) {
  return double(compute_t<T>(x[(n * s.c + k) * s.d + d]));
}

template <class T> void writeLogSoftmax(const T *x, T *y, const LossDims &s) {
  popx::Opx::parallelFor(s.n * s.d, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / s.d, d = p % s.d;
      const double lse = logSumExp(x, s, n, d);
      for (int64_t k = 0; k < s.c; ++k) y[(n * s.c + k) * s.d + d] = T(at(x, s, n, k, d) - lse);
    }
  });
}

void checkTargets(const Op &op, const popx::TensorView &target, int64_t c, bool hasIgnore, int64_t ignore) {
  for (int64_t p = 0; p < target.nelms(); ++p) {
    const int64_t t = targetAt(target, p);
    if (!(hasIgnore && t == ignore) && (t < 0 || t >= c))
      throw error("{}: target {} at position {} is outside [0, {})", op.opid.type, t, p, c);
  }
}

/// Per-sample losses l and weights wt (0 for ignored targets) into loss / weight.
template <class T>
void sampleLosses(const T *x, const T *w, const popx::TensorView &target, const LossDims &s, bool softmax,
                  bool hasIgnore, int64_t ignore, double *loss, double *weight) {
  popx::Opx::parallelFor(s.n * s.d, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t t = targetAt(target, p), n = p / s.d, d = p % s.d;
      double l = 0, wt = 0;
      if (!(hasIgnore && t == ignore)) {
        wt = w ? double(compute_t<T>(w[t])) : 1.0;
        l = -wt * (at(x, s, n, t, d) - (softmax ? logSumExp(x, s, n, d) : 0.0));
      }
      loss[p] = l;
      weight[p] = wt;
    }
  });
}

class OnnxLossOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const bool softmax = op_p->opid.type == "SoftmaxCrossEntropyLoss";
    const LossDims s = lossDims(inInfo(0));
    const int64_t samples = s.n * s.d;
    const auto red = onnxLossReduction(*op_p);
    const bool hasIgnore = op_p->attributes().hasAttribute("ignore_index");
    const int64_t ignore = op_p->attr<Attributes::Int>("ignore_index", 0);
    auto x = getInTensor(0), target = getInTensor(1), out = getOutTensor(0);
    auto w = hasInput(2) ? getInTensor(2) : popx::TensorView();
    auto logProb = softmax && hasOutput(1) ? getOutTensor(1) : popx::TensorView();
    auto scratch = createTensor(TensorInfo(DataType::DOUBLE, Shape{2 * samples}));
    const Op *op = op_p;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        checkTargets(*op, target, s.c, hasIgnore, ignore);
        const T *px = x.data<T>();
        if (logProb.raw()) writeLogSoftmax(px, logProb.data<T>(), s);
        double *loss = scratch.data<double>(), *weight = loss + samples;
        sampleLosses(px, w.raw() ? w.data<T>() : nullptr, target, s, softmax, hasIgnore, ignore, loss, weight);
        T *y = out.data<T>();
        if (red == OnnxLossReduction::None) {
          for (int64_t p = 0; p < samples; ++p) y[p] = T(loss[p]);
          return;
        }
        double total = 0, wsum = 0;
        for (int64_t p = 0; p < samples; ++p) total += loss[p], wsum += weight[p];
        y[0] = T(red == OnnxLossReduction::Sum ? total : total / wsum);
      });
    });
  }
};

/// dx from dL (inputs dL, x, target[, weight]): see ops/onnx_loss.cpp.
class OnnxLossGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const bool softmax = op_p->opid.type == "SoftmaxCrossEntropyLossGrad";
    const LossDims s = lossDims(inInfo(1));
    const auto red = onnxLossReduction(*op_p);
    const bool hasIgnore = op_p->attributes().hasAttribute("ignore_index");
    const int64_t ignore = op_p->attr<Attributes::Int>("ignore_index", 0);
    auto dl = getInTensor(0), x = getInTensor(1), target = getInTensor(2), dx = getOutTensor(0);
    auto w = hasInput(3) ? getInTensor(3) : popx::TensorView();
    const Op *op = op_p;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        checkTargets(*op, target, s.c, hasIgnore, ignore);
        const T *px = x.data<T>(), *pw = w.raw() ? w.data<T>() : nullptr, *pdl = dl.data<T>();
        auto weightAt = [&](int64_t p) {
          const int64_t t = targetAt(target, p);
          return hasIgnore && t == ignore ? 0.0 : (pw ? double(compute_t<T>(pw[t])) : 1.0);
        };
        double wsum = 0;
        if (red == OnnxLossReduction::Mean)
          for (int64_t p = 0; p < s.n * s.d; ++p) wsum += weightAt(p);
        T *out = dx.data<T>();
        popx::Opx::parallelFor(s.n * s.d, [&](int64_t b, int64_t e) {
          for (int64_t p = b; p < e; ++p) {
            const int64_t n = p / s.d, d = p % s.d, t = targetAt(target, p);
            double g = red == OnnxLossReduction::None ? double(compute_t<T>(pdl[p])) : double(compute_t<T>(pdl[0]));
            if (red == OnnxLossReduction::Mean) g = wsum != 0 ? g / wsum : 0.0;
            g *= weightAt(p);
            const double lse = softmax ? logSumExp(px, s, n, d) : 0.0;
            for (int64_t k = 0; k < s.c; ++k) {
              const double hot = k == t ? 1.0 : 0.0;
              const double v = softmax ? g * (std::exp(at(px, s, n, k, d) - lse) - hot) : -g * hot;
              out[(n * s.c + k) * s.d + d] = T(v);
            }
          }
        });
      });
    });
  }
};

} // namespace
static popx::OpxCreator<OnnxLossGradOpx> onnxLossGradOpxCreator(
    {internalOp("NegativeLogLikelihoodLossGrad"), internalOp("SoftmaxCrossEntropyLossGrad")});
static popx::OpxCreator<OnnxLossOpx> nllLossOpxCreator(onnxOp("NegativeLogLikelihoodLoss"));
static popx::OpxCreator<OnnxLossOpx> sceLossOpxCreator(onnxOp("SoftmaxCrossEntropyLoss"));
} // namespace popart::cpu
