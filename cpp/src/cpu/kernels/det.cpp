// Det kernel: LU decomposition with partial pivoting in double, one matrix per
// task (matrices in parallel); det = sign of the row permutation * prod(diag U).
// The working copy of each matrix lives in a scratch buffer made in grow.
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <utility>

namespace popart::cpu {
namespace {

/// Determinant of the m x m row-major matrix a (overwritten by its LU factors).
double luDeterminant(double *a, int64_t m) {
  double det = 1;
  for (int64_t k = 0; k < m; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < m; ++i)
      if (std::fabs(a[i * m + k]) > std::fabs(a[p * m + k])) p = i;
    if (a[p * m + k] == 0) return 0;
    if (p != k) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[k * m + j], a[p * m + j]);
      det = -det;
    }
    const double pivot = a[k * m + k];
    det *= pivot;
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = a[i * m + k] / pivot;
      for (int64_t j = k + 1; j < m; ++j) a[i * m + j] -= f * a[k * m + j];
    }
  }
  return det;
}

class DetOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), y = getOutTensor(0);
    const int64_t m = inShape(0).back(), count = y.nelms();
    auto scratch = createTensor(TensorInfo(DataType::DOUBLE, Shape{count * m * m}));
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const T *px = x.data<T>();
        T *py = y.data<T>();
        double *work = scratch.data<double>();
        popx::Opx::parallelFor(count, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            double *a = work + c * m * m;
            for (int64_t i = 0; i < m * m; ++i) a[i] = double(compute_t<T>(px[c * m * m + i]));
            py[c] = T(static_cast<compute_t<T>>(luDeterminant(a, m)));
          }
        }, 1);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<DetOpx> detOpxCreator(onnxOp("Det"));
} // namespace popart::cpu
