// Hann, Hamming and Blackman window kernels: y[n] = a0 - a1 cos(2 pi n / M) +
// a2 cos(4 pi n / M), evaluated in double and stored in the output type.
#include "dispatch.hpp"
#include "popart/cpu/kernel.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

struct WindowCoefficients {
  double a0, a1, a2;
};

WindowCoefficients coefficients(const std::string &type) {
  if (type == "HannWindow") return {0.5, 0.5, 0.0};
  if (type == "HammingWindow") return {25.0 / 46.0, 21.0 / 46.0, 0.0};
  return {0.42, 0.5, 0.08};  // BlackmanWindow
}

void windowFwd(KernelContext &ctx) {
  const WindowCoefficients c = coefficients(ctx.op().opid.type);
  const int64_t n = ctx.outInfo(0).nelms();
  const double m = ctx.op().attr<Attributes::Int>("periodic", 1) ? double(n) : double(n - 1);
  const double pi = 3.14159265358979323846;
  dispatchNumeric(ctx.outInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    T *y = ctx.out<T>(0).data();
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const double v = c.a0 - c.a1 * std::cos(2 * pi * i / m) + c.a2 * std::cos(4 * pi * i / m);
        y[i] = T(static_cast<compute_t<T>>(v));
      }
    });
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("HannWindow"), windowFwd);
POPART_REGISTER_KERNEL(onnxOp("HammingWindow"), windowFwd);
POPART_REGISTER_KERNEL(onnxOp("BlackmanWindow"), windowFwd);
} // namespace popart::cpu
