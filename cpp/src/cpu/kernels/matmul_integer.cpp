// MatMulInteger / QLinearMatMul: a first step stores A - a_zero_point and the transpose of B - b_zero_point
// as INT32 (buffers made in grow), so each output element is a contiguous dot product; rows of the
// output run in parallel, batch dimensions broadcast as numpy matmul. Sums wrap in 32 bits (unsigned
// arithmetic). QLinearMatMul requantises each sum in double with the multiplier computed in the scale type.
#include "dispatch.hpp"
#include "integer_util.hpp"
#include "ops/matmul_shape.hpp"
#include <memory>
#include <vector>

namespace popart::cpu {
namespace {

/// Index of the operand batch (shape `own`, 1 = broadcast) read by output batch b of shape `batch`.
int64_t qmmBatchIndex(int64_t b, const Shape &batch, const Shape &own) {
  int64_t idx = 0, stride = 1;
  for (size_t d = batch.size(); d-- > 0;) {
    const int64_t i = b % batch[d];
    b /= batch[d];
    if (own[d] != 1) idx += i * stride;
    stride *= own[d];
  }
  return idx;
}

int32_t qmmDot(const int32_t *a, const int32_t *b, int64_t k) {
  uint32_t s = 0;
  for (int64_t i = 0; i < k; ++i) s += static_cast<uint32_t>(a[i]) * static_cast<uint32_t>(b[i]);
  return static_cast<int32_t>(s);
}

/// QLinearMatMul's requantisation inputs: scales (type S) per tensor or per row / column, output zero point.
struct QmmOutput {
  popx::TensorView aScale, bScale, yScale, yZero;
};

/// One output row of QLinearMatMul: y = saturate(rint(acc * S(S(sa sb) / sy)) + zy).
template <class S, class Q>
void qmmRequantRow(const int32_t *ar, const int32_t *bm, int64_t n, int64_t k, int64_t row, const QmmOutput &q,
                   Q *yr) {
  using C = compute_t<S>;
  const S *sa = q.aScale.data<S>(), *sb = q.bScale.data<S>();
  const C sy = C(q.yScale.data<S>()[0]);
  const S a = sa[q.aScale.nelms() == 1 ? 0 : row];
  const double zero = static_cast<double>(q.yZero.data<Q>()[0]);
  for (int64_t c = 0; c < n; ++c) {
    const S ab = S(C(a) * C(sb[q.bScale.nelms() == 1 ? 0 : c]));
    const double m = static_cast<double>(C(S(C(ab) / sy)));
    yr[c] = requantise<Q>(qmmDot(ar, bm + c * k, k), m, zero);
  }
}

class MatMulIntegerOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const bool qlinear = op_p->opid.type == "QLinearMatMul";
    const InIndex ia = 0, ib = qlinear ? 3 : 1, iza = 2, izb = qlinear ? 5 : 3;
    const MatMulGeometry g = matmulGeometry(inShape(ia), inShape(ib));
    popx::TensorView none, a = getInTensor(ia), b = getInTensor(ib), y = getOutTensor(0);
    popx::TensorView za = hasInput(iza) ? getInTensor(iza) : none, zb = hasInput(izb) ? getInTensor(izb) : none;
    const int64_t matsA = a.nelms() / (g.m * g.k), matsB = b.nelms() / (g.k * g.n);
    auto ca = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(a.nelms()));
    auto cb = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(b.nelms()));
    prog.add([=] {
      dispatchInt8(a.dtype(),
                   [&](auto tag) { centreToInt32(a.data<decltype(tag)>(), za, matsA, g.m, g.k, false, ca->data()); });
      dispatchInt8(b.dtype(),
                   [&](auto tag) { centreToInt32(b.data<decltype(tag)>(), zb, matsB, g.k, g.n, true, cb->data()); });
    });
    QmmOutput q;
    if (qlinear) q = {getInTensor(1), getInTensor(4), getInTensor(6), getInTensor(7)};
    prog.add([=] {
      popx::Opx::parallelFor(g.batchSize() * g.m, [&](int64_t lo, int64_t hi) {
        for (int64_t t = lo; t < hi; ++t) {
          const int64_t bt = t / g.m, r = t % g.m;
          const int32_t *ar = ca->data() + (qmmBatchIndex(bt, g.batch, g.batchA) * g.m + r) * g.k;
          const int32_t *bm = cb->data() + qmmBatchIndex(bt, g.batch, g.batchB) * g.n * g.k;
          if (!qlinear) {
            int32_t *yr = y.data<int32_t>() + t * g.n;
            for (int64_t c = 0; c < g.n; ++c) yr[c] = qmmDot(ar, bm + c * g.k, g.k);
            continue;
          }
          dispatchFloat(q.aScale.dtype(), [&](auto stag) {
            dispatchInt8(y.dtype(), [&](auto qtag) {
              using Q = decltype(qtag);
              qmmRequantRow<decltype(stag)>(ar, bm, g.n, g.k, r, q, y.data<Q>() + t * g.n);
            });
          });
        }
      }, std::max<int64_t>(1, 16384 / std::max<int64_t>(g.n * g.k, 1)));
    });
  }
};

} // namespace
static popx::OpxCreator<MatMulIntegerOpx> matmulIntegerOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("MatMulInteger"), onnxOp("QLinearMatMul")});
} // namespace popart::cpu
