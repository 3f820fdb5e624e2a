// RandomNormal/RandomUniform(Like): counter-based draws, element i of run r from
// randomMix64(key(seed, op, r) + randomMix64(i)) (53-bit uniforms; normals by Box-Muller
// on pairs), so results do not depend on the thread split. Each run advances r.
#include "ops/random.hpp"
#include "popart/ir.hpp"
#include "cpu/devicex.hpp"
#include "popart/popx/opx.hpp"
#include "dispatch.hpp"
#include "random_bits.hpp"
#include <cmath>
#include <cstring>
#include <memory>

namespace popart::cpu {
namespace {

template <class T> void drawRandom(T *y, int64_t n, uint64_t key, bool normal, double p0, double p1) {
  if (!normal) {
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<T>(p0 + (p1 - p0) * randomUniform01(key, i));
    });
    return;
  }
  popx::Opx::parallelFor((n + 1) / 2, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const double r = std::sqrt(-2.0 * std::log1p(-randomUniform01(key, 2 * k)));
      const double a = 6.283185307179586 * randomUniform01(key, 2 * k + 1);
      y[2 * k] = static_cast<T>(p0 + p1 * r * std::cos(a));
      if (2 * k + 1 < n) y[2 * k + 1] = static_cast<T>(p0 + p1 * r * std::sin(a));
    }
  });
}

class RandomOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<RandomOp>();
    popx::TensorView y = getOutTensor(0);
    uint32_t attrSeed = 0;
    const float s = op.seed();
    std::memcpy(&attrSeed, &s, sizeof(s));
    const uint64_t fixedSeed = attrSeed;
    const bool fixed = op.hasSeed(), normal = op.isNormal();
    const double p0 = op.param0(), p1 = op.param1();
    auto stream = std::make_shared<RandomStream>(dv_p->randomState(), randomOpKey(op.outId(0)));
    dispatchFloat(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const uint64_t key = stream->nextKey(fixed ? &fixedSeed : nullptr);
        drawRandom(y.data<T>(), y.nelms(), key, normal, p0, p1);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<RandomOpx> POPART_UNIQUE_NAME(randomOpxCreator_)(std::vector<OperatorIdentifier>{
    onnxOp("RandomNormal"), onnxOp("RandomUniform"), onnxOp("RandomNormalLike"), onnxOp("RandomUniformLike")});
} // namespace popart::cpu
