// FLOAT16 <-> float staging copies around oneDNN primitives.
#include "float_staging.hpp"
#include "popart/error.hpp"

namespace popart::cpu {

popx::TensorView FloatStaging::stage(const popx::Opx &opx, const popx::TensorView &t,
                                     std::vector<std::pair<popx::TensorView, popx::TensorView>> &list) {
  if (t.dtype() == DataType::FLOAT) return t;
  if (t.dtype() != DataType::FLOAT16) throw internal_error("FloatStaging: {} is neither FLOAT nor FLOAT16", t.info());
  auto copy = opx.createTensor(TensorInfo(DataType::FLOAT, t.shape()));
  list.emplace_back(t, copy);
  return copy;
}

popx::TensorView FloatStaging::in(const popx::Opx &opx, InIndex i) { return stage(opx, opx.getInTensor(i), ins_); }
popx::TensorView FloatStaging::out(const popx::Opx &opx, OutIndex i) { return stage(opx, opx.getOutTensor(i), outs_); }

void FloatStaging::toFloat() const {
  for (const auto &[half, f] : ins_) {
    const auto *src = half.data<float16_t>();
    float *dst = f.data<float>();
    popx::Opx::parallelFor(half.nelms(), [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dst[i] = float(src[i]);
    });
  }
}

void FloatStaging::fromFloat() const {
  for (const auto &[half, f] : outs_) {
    const float *src = f.data<float>();
    auto *dst = half.data<float16_t>();
    popx::Opx::parallelFor(half.nelms(), [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) dst[i] = float16_t(src[i]);
    });
  }
}

} // namespace popart::cpu
