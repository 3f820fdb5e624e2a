// TensorScatter kernel: copies past_cache to present (unless they share the
// buffer), checks the write positions, then copies each update row block
// (outer prefixes in parallel) to its cache position.
#include "popart/cpu/kernel.hpp"
#include "popart/error.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

void tensorScatterFwd(KernelContext &ctx) {
  const Shape &c = ctx.inInfo(0).shape(), &u = ctx.inInfo(1).shape();
  const int64_t r = static_cast<int64_t>(c.size()), a0 = ctx.op().attr<Attributes::Int>("axis", -2);
  const int64_t axis = a0 < 0 ? a0 + r : a0, maxLen = c[axis], len = u[axis];
  const bool circular = ctx.op().attr<Attributes::String>("mode", "linear") == "circular";
  int64_t outer = 1, inner = dataTypeSize(ctx.inInfo(0).dataType());
  for (int64_t d = 0; d < axis; ++d) outer *= c[d];
  for (int64_t d = axis + 1; d < r; ++d) inner *= c[d];
  const int64_t perBatch = outer / c[0];
  const int64_t *w = ctx.hasInput(2) ? ctx.in<int64_t>(2).data() : nullptr;
  for (int64_t b = 0; w && !circular && b < c[0]; ++b)
    if (w[b] < 0 || w[b] + len > maxLen)
      throw error("TensorScatter: write_indices[{}] = {} with {} rows does not fit a cache of length {} (mode linear)",
                  b, w[b], len, maxLen);
  auto *y = static_cast<char *>(ctx.outView(0).raw());
  const auto *past = static_cast<const char *>(ctx.inView(0).raw()), *upd = static_cast<const char *>(ctx.inView(1).raw());
  if (y != past) std::memcpy(y, past, static_cast<size_t>(ctx.outView(0).nbytes()));
  popx::Opx::parallelFor(outer, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const int64_t start = w ? w[o / perBatch] : 0;
      for (int64_t s = 0; s < len; ++s) {
        const int64_t pos = circular ? ((start + s) % maxLen + maxLen) % maxLen : start + s;
        std::memcpy(y + (o * maxLen + pos) * inner, upd + (o * len + s) * inner, static_cast<size_t>(inner));
      }
    }
  }, 16);
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("TensorScatter"), tensorScatterFwd);
} // namespace popart::cpu
