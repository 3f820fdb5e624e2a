// Float8 kernels (ops/float8.cpp): the casts are castNarrow with the scale 2^log2_scale; matmul and the
// convolutions decode their float8 operands to float (exact), accumulate in float, then scale and round once
// to the output type. log2_scale is read at each run and must lie in [-32, 32).
#include "cast_narrow.hpp"
#include "conv_loops.hpp"
#include "ops/conv_attributes.hpp"
#include "ops/matmul_shape.hpp"
#include <cmath>

namespace popart::cpu {
namespace {

/// 2^log2_scale for the scalar INT32 at `p`; throws naming the op when out of range.
float pow2Scale(const Op &op, const int32_t *p) {
  const int32_t s = *p;
  if (s < -32 || s >= 32)
    throw error("{}: log2_scale is {}, outside the supported range [-32, 32)", op.debugName(), s);
  return std::ldexp(1.0f, s);
}

/// Pow2ScaleThenCast / CastThenPow2Scale: one castNarrow of X (input 0) with scale 2^(input 1).
class Pow2ScaleCastOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    auto x = getInTensor(0), y = getOutTensor(0);
    const int32_t *s = getInTensor(1).data<int32_t>();
    NarrowCastMode mode;
    mode.saturate = op.attr<Attributes::Int>("nan_on_overflow", 0) == 0;
    prog.add([&op, x, y, s, mode]() mutable {
      mode.scale = pow2Scale(op, s);
      castNarrow(x, y, mode);
    });
  }
};

/// y = (type of y)(x * scale) for a FLOAT16 or FLOAT y: one rounding.
void scaleTo(const float *x, const popx::TensorView &y, float scale) {
  const int64_t n = y.nelms();
  auto loop = [&](auto *out) {
    using T = std::remove_pointer_t<decltype(out)>;
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(x[i] * scale);
    });
  };
  if (y.dtype() == DataType::FLOAT16) loop(y.data<float16_t>());
  else loop(y.data<float>());
}

/// Y[q, i, j] = sum_k A[q, i, k] B[q, k, j] over float buffers with numpy's batch broadcasting.
struct Float8MatMul {
  MatMulGeometry g;
  std::vector<int64_t> aOff, bOff;  // per output batch element
  explicit Float8MatMul(const Shape &a, const Shape &b) : g(matmulGeometry(a, b)) {
    const int64_t total = g.batchSize();
    for (int64_t q = 0; q < total; ++q) {
      int64_t rest = q, oa = 0, ob = 0, sa = g.m * g.k, sb = g.k * g.n;
      for (size_t d = g.batch.size(); d-- > 0;) {
        const int64_t i = rest % g.batch[d];
        rest /= g.batch[d];
        if (g.batchA[d] != 1) oa += i * sa;
        if (g.batchB[d] != 1) ob += i * sb;
        sa *= g.batchA[d];
        sb *= g.batchB[d];
      }
      aOff.push_back(oa);
      bOff.push_back(ob);
    }
  }
  void run(const float *a, const float *b, float *y) const {
    popx::Opx::parallelFor(g.batchSize() * g.m, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t q = r / g.m, i = r % g.m;
        const float *ar = a + aOff[q] + i * g.k;
        float *yr = y + r * g.n;
        std::fill(yr, yr + g.n, 0.0f);
        for (int64_t k = 0; k < g.k; ++k) {
          const float av = ar[k], *br = b + bOff[q] + k * g.n;
          for (int64_t j = 0; j < g.n; ++j) yr[j] += av * br[j];
        }
      }
    }, 1);
  }
};

/// The convolution of ConvPow2Scaled (forward) or ConvTransposePow2Scaled (Conv's data pass).
ConvShape float8ConvShape(const Op &op, bool transpose) {
  const Shape &in = op.inShape(0), &w = op.inShape(1), &out = op.outShape(0);
  Shape kernel(w.begin() + 2, w.end());
  if (!transpose) {
    ConvShape cs{in, w, out, in[1] / w[1], {}};
    cs.g = windowGeometry(op, Shape(in.begin() + 2, in.end()), kernel);
    return cs;
  }
  ConvShape cs{out, w, in, out[1] / w[1], {}};  // x: the transpose's output, y: its input
  cs.g = convTransposeGeometry(op, Shape(in.begin() + 2, in.end()), kernel);
  return cs;
}

/// MatMulPow2Scaled, ConvPow2Scaled, ConvTransposePow2Scaled: decode A/X and B/W into float scratch, compute
/// in float, then y = (type of Y)(result * 2^log2_scale).
class Float8ProductOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    auto a = getInTensor(0), b = getInTensor(1), y = getOutTensor(0);
    const int32_t *s = getInTensor(2).data<int32_t>();
    auto af = createTensor(TensorInfo(DataType::FLOAT, a.shape()));
    auto bf = createTensor(TensorInfo(DataType::FLOAT, b.shape()));
    auto yf = createTensor(TensorInfo(DataType::FLOAT, y.shape()));
    std::function<void()> product;
    const float *pa = af.data<float>(), *pb = bf.data<float>();
    float *py = yf.data<float>();
    if (op.opid.type == "MatMulPow2Scaled") {
      auto mm = std::make_shared<Float8MatMul>(a.shape(), b.shape());
      product = [mm, pa, pb, py] { mm->run(pa, pb, py); };
    } else {
      auto cs = std::make_shared<ConvShape>(float8ConvShape(op, op.opid.type == "ConvTransposePow2Scaled"));
      if (op.opid.type == "ConvPow2Scaled")
        product = [cs, pa, pb, py] { ConvLoops<float>(*cs).forward(pa, pb, nullptr, py); };
      else
        product = [cs, pa, pb, py] { ConvLoops<float>(*cs).data(pa, pb, nullptr, py); };
    }
    prog.add([&op, a, b, y, af, bf, s, py, product] {
      const float scale = pow2Scale(op, s);
      castNarrow(a, af, NarrowCastMode{});
      castNarrow(b, bf, NarrowCastMode{});
      product();
      scaleTo(py, y, scale);
    });
  }
};

} // namespace
static popx::OpxCreator<Pow2ScaleCastOpx> pow2ScaleCastOpxCreator({graphcoreOp("Pow2ScaleThenCast"),
                                                                   graphcoreOp("CastThenPow2Scale")});
static popx::OpxCreator<Float8ProductOpx> float8ProductOpxCreator({graphcoreOp("MatMulPow2Scaled"),
                                                                   graphcoreOp("ConvPow2Scaled"),
                                                                   graphcoreOp("ConvTransposePow2Scaled")});
} // namespace popart::cpu
