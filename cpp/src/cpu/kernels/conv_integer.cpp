// ConvInteger / QLinearConv: a first step stores x - x_zero_point and w - w_zero_point (per output channel)
// as INT32 (buffers made in grow); the plain-loop convolution (conv_loops.hpp) then sums in INT32, with
// QLinearConv's bias. QLinearConv requantises each sum in double with the multiplier
// float(float(x_scale * w_scale[m]) / y_scale) of its output channel m.
#include "conv_loops.hpp"
#include "integer_util.hpp"
#include "ops/conv_attributes.hpp"
#include <memory>
#include <vector>

namespace popart::cpu {
namespace {

/// QLinearConv's requantisation inputs (FLOAT scales).
struct QconvOutput {
  popx::TensorView xScale, wScale, yScale, yZero;
};

template <class Q>
void qconvRequantise(const int32_t *acc, Q *y, int64_t n, int64_t m, int64_t plane, const QconvOutput &q) {
  const float sx = q.xScale.data<float>()[0], sy = q.yScale.data<float>()[0], *sw = q.wScale.data<float>();
  const bool perChannel = q.wScale.nelms() > 1;
  const double zero = static_cast<double>(q.yZero.data<Q>()[0]);
  popx::Opx::parallelFor(n * m, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const float xw = sx * sw[perChannel ? t % m : 0];
      const double mult = static_cast<double>(xw / sy);
      for (int64_t i = t * plane; i < (t + 1) * plane; ++i) y[i] = requantise<Q>(acc[i], mult, zero);
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane, 1)));
}

class ConvIntegerOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const bool qlinear = op_p->opid.type == "QLinearConv";
    const InIndex ix = 0, iw = qlinear ? 3 : 1, izx = 2, izw = qlinear ? 5 : 3;
    ConvShape cs{inShape(ix), inShape(iw), outShape(0), 1, {}};
    cs.group = cs.x[1] / cs.w[1];
    cs.g = windowGeometry(*op_p, Shape(cs.x.begin() + 2, cs.x.end()), Shape(cs.w.begin() + 2, cs.w.end()));
    popx::TensorView none, x = getInTensor(ix), w = getInTensor(iw), y = getOutTensor(0);
    popx::TensorView zx = hasInput(izx) ? getInTensor(izx) : none, zw = hasInput(izw) ? getInTensor(izw) : none;
    const int32_t *bias = qlinear && hasInput(8) ? getInTensor(8).data<int32_t>() : nullptr;
    const int64_t m = cs.m(), perFilter = w.nelms() / std::max<int64_t>(m, 1), planes = cs.n() * cs.c(),
                  inner = x.nelms() / std::max<int64_t>(planes, 1);
    auto cx = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(x.nelms()));
    auto cw = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(w.nelms()));
    auto acc = std::make_shared<std::vector<int32_t>>(qlinear ? static_cast<size_t>(y.nelms()) : 0);
    QconvOutput q;
    if (qlinear) q = {getInTensor(1), getInTensor(4), getInTensor(6), getInTensor(7)};
    prog.add([=] {
      dispatchInt8(x.dtype(),
                   [&](auto tag) { centreToInt32(x.data<decltype(tag)>(), zx, 1, planes, inner, false, cx->data()); });
      dispatchInt8(w.dtype(),
                   [&](auto tag) { centreToInt32(w.data<decltype(tag)>(), zw, 1, m, perFilter, false, cw->data()); });
      int32_t *sums = qlinear ? acc->data() : y.data<int32_t>();
      ConvLoops<int32_t>(cs).forward(cx->data(), cw->data(), bias, sums);
      if (!qlinear) return;
      const int64_t plane = y.nelms() / std::max<int64_t>(cs.n() * m, 1);
      dispatchInt8(y.dtype(), [&](auto tag) { qconvRequantise(sums, y.data<decltype(tag)>(), cs.n(), m, plane, q); });
    });
  }
};

} // namespace
static popx::OpxCreator<ConvIntegerOpx> convIntegerOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("ConvInteger"), onnxOp("QLinearConv")});
} // namespace popart::cpu
