// Shape: y = x.shape[start : start + len(y)] as int64 (x's data is not read).
// Size: y = the number of elements of x (x's data is not read).
// ConstantOfShape: every element of y = the `value` attribute (zeros by default).
#include "ops/shape.hpp"
#include "popart/cpu/kernel.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

void shapeFwd(KernelContext &ctx) {
  const Shape &s = ctx.inInfo(0).shape();
  auto y = ctx.out<int64_t>(0);
  const int64_t start = ctx.op<ShapeOp>().start();
  for (int64_t i = 0; i < y.size(); ++i) y[i] = s[start + i];
}

void sizeFwd(KernelContext &ctx) { ctx.out<int64_t>(0)[0] = ctx.inInfo(0).nelms(); }

void constantOfShapeFwd(KernelContext &ctx) {
  const popx::TensorView &y = ctx.outView(0);
  auto *out = static_cast<char *>(y.raw());
  if (!ctx.op().attributes().hasAttribute("value")) {
    std::memset(out, 0, static_cast<size_t>(y.nbytes()));
    return;
  }
  const auto &value = ctx.op().attr<Attributes::Tensor>("value").data;
  dispatchBytes(static_cast<int64_t>(value.size()), [&](auto tag) {
    using U = decltype(tag);
    U v;
    std::memcpy(&v, value.data(), sizeof(U));
    std::fill_n(reinterpret_cast<U *>(out), y.nelms(), v);
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Shape"), shapeFwd);
POPART_REGISTER_KERNEL(onnxOp("Size"), sizeFwd);
POPART_REGISTER_KERNEL(onnxOp("ConstantOfShape"), constantOfShapeFwd);
} // namespace popart::cpu
