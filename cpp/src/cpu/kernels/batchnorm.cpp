// BatchNormalization (inference): per channel a = scale / sqrt(var + epsilon), b = B - mean * a, computed at
// each run (the statistics are weights), then Y = a * X + b over each [n, c] plane. Memory-bound: a plain loop.
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <memory>

namespace popart::cpu {
namespace {

/// Per-channel parameter i, converted from its own float type (opset 15 allows one different from X).
template <class Acc> void readBatchNormParam(const popx::TensorView &t, std::vector<Acc> &out) {
  dispatchFloat(t.dtype(), [&](auto tag) {
    using P = decltype(tag);
    const P *p = static_cast<const P *>(t.raw());
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<Acc>(static_cast<compute_t<P>>(p[i]));
  });
}

template <class T> struct BatchNormStep {
  using Acc = compute_t<T>;
  popx::TensorView x, y, scale, bias, mean, var;
  int64_t batch, channels, inner;
  Acc epsilon;
  std::shared_ptr<std::vector<Acc>> a, b, m, v;  // scratch kept between runs

  void operator()() const {
    readBatchNormParam(scale, *a), readBatchNormParam(bias, *b), readBatchNormParam(mean, *m), readBatchNormParam(var, *v);
    for (int64_t c = 0; c < channels; ++c) {
      Acc s = (*a)[c] / std::sqrt((*v)[c] + epsilon);
      (*a)[c] = s;
      (*b)[c] -= (*m)[c] * s;
    }
    const T *xp = static_cast<const T *>(x.raw());
    T *yp = static_cast<T *>(y.raw());
    const Acc *ap = a->data(), *bp = b->data();
    int64_t n = inner, ch = channels;
    popx::Opx::parallelFor(batch * channels, [=](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        Acc s = ap[p % ch], t = bp[p % ch];
        const T *xi = xp + p * n;
        T *yi = yp + p * n;
        for (int64_t i = 0; i < n; ++i) yi[i] = static_cast<T>(Acc(xi[i]) * s + t);
      }
    }, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)));
  }
};

class BatchNormOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &xs = inShape(0);
    int64_t channels = inInfo(1).nelms();  // C, or C * spatial with spatial=0 (opset < 9)
    int64_t batch = xs[0], inner = inInfo(0).nelms() / std::max<int64_t>(batch * channels, 1);
    float eps = op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    dispatchFloat(inInfo(0).dataType(), [&](auto tag) {
      using T = decltype(tag);
      using Acc = compute_t<T>;
      auto buf = [&] { return std::make_shared<std::vector<Acc>>(static_cast<size_t>(channels)); };
      BatchNormStep<T> s{getInTensor(0), getOutTensor(0), getInTensor(1), getInTensor(2), getInTensor(3),
                         getInTensor(4), batch, channels, inner, static_cast<Acc>(eps), buf(), buf(), buf(), buf()};
      prog.add(s);
    });
  }
};

} // namespace
static popx::OpxCreator<BatchNormOpx> batchNormOpxCreator(onnxOp("BatchNormalization"));
} // namespace popart::cpu
