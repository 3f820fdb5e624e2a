// Cast kernel: y[i] = (To) x[i] through the source's compute type (float for
// float16; F16C between float and float16); to BOOL is x != 0. BFLOAT16 and the
// storage types go through castNarrow (cast_narrow.cpp). Same-type casts alias,
// so they copy only when the buffers differ (constant folding). Also runs
// BitCast (a byte copy), CastLike (input 1 gives only the type) and CastGrad
// (dy cast back to x's type).
#include "cast_narrow.hpp"
#include "popart/cpu/kernel.hpp"
#include "vmath.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

NarrowCastMode narrowCastMode(const Op &op) {
  NarrowCastMode mode;
  mode.saturate = op.attr<Attributes::Int>("saturate", 1) != 0;
  const std::string rounding = op.attr<Attributes::String>("round_mode", "up");  // checked by the op
  if (rounding == "down") mode.rounding = PowerOfTwoRounding::Down;
  else if (rounding == "nearest") mode.rounding = PowerOfTwoRounding::Nearest;
  return mode;
}

void castFwd(KernelContext &ctx) {
  const auto &xv = ctx.inView(0), &yv = ctx.outView(0);
  if (xv.dtype() == yv.dtype()) {
    if (xv.raw() != yv.raw()) std::memcpy(yv.raw(), xv.raw(), static_cast<size_t>(xv.nbytes()));
    return;
  }
  if (isNarrowCast(xv.dtype(), yv.dtype()))
    return castNarrow(xv, yv, narrowCastMode(ctx.op()));
  const int64_t n = xv.nelms();
  if (xv.dtype() == DataType::FLOAT16 && yv.dtype() == DataType::FLOAT)
    return popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      halfToFloat(xv.data<float16_t>() + b, yv.data<float>() + b, e - b);
    }, kMemoryBoundGrain);
  if (xv.dtype() == DataType::FLOAT && yv.dtype() == DataType::FLOAT16)
    return popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      floatToHalf(xv.data<float>() + b, yv.data<float16_t>() + b, e - b);
    }, kMemoryBoundGrain);
  dispatchAll(xv.dtype(), [&](auto from) {
    using From = decltype(from);
    dispatchAll(yv.dtype(), [&](auto to) {
      using To = decltype(to);
      const From *x = static_cast<const From *>(xv.raw());
      To *y = static_cast<To *>(yv.raw());
      popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = castValue<To>(x[i]);
      }, kMemoryBoundGrain);
    });
  });
}

void bitCastFwd(KernelContext &ctx) {
  std::memcpy(ctx.outView(0).raw(), ctx.inView(0).raw(), static_cast<size_t>(ctx.inView(0).nbytes()));
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("BitCast"), bitCastFwd);
POPART_REGISTER_KERNEL(onnxOp("Cast"), castFwd);
POPART_REGISTER_KERNEL(onnxOp("CastLike"), castFwd);
POPART_REGISTER_KERNEL(internalOp("CastGrad"), castFwd);
} // namespace popart::cpu
