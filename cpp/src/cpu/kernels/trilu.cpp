// Trilu kernel (also TriluGrad, on dy): per matrix of the last two dimensions,
// copies the kept triangle (upper: j - i >= k, lower: j - i <= k) and zeroes
// the rest; k comes from the optional input 1 at run time. Rows are
// independent, so the loop runs over all rows of all matrices in parallel.
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

void triluFwd(KernelContext &ctx) {
  const Shape &s = ctx.inInfo(0).shape();
  const int64_t rows = s[s.size() - 2], cols = s.back();
  const int64_t k = ctx.hasInput(1) ? ctx.in<int64_t>(1)[0] : 0;
  const bool upper = ctx.op().attr<Attributes::Int>("upper", 1) != 0;
  const int64_t bytes = dataTypeSize(ctx.inInfo(0).dataType());
  const auto *x = static_cast<const char *>(ctx.inView(0).raw());
  auto *y = static_cast<char *>(ctx.outView(0).raw());
  const int64_t allRows = cols ? ctx.inInfo(0).nelms() / cols : 0;
  popx::Opx::parallelFor(allRows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t i = r % rows, off = r * cols * bytes;
      // kept columns: upper [clamp(i + k), cols), lower [0, clamp(i + k + 1))
      const int64_t edge = std::clamp<int64_t>(upper ? i + k : i + k + 1, 0, cols);
      const int64_t keepBegin = upper ? edge : 0, keepEnd = upper ? cols : edge;
      std::memset(y + off, 0, static_cast<size_t>(keepBegin * bytes));
      std::memset(y + off + keepEnd * bytes, 0, static_cast<size_t>((cols - keepEnd) * bytes));
      std::memcpy(y + off + keepBegin * bytes, x + off + keepBegin * bytes,
                  static_cast<size_t>((keepEnd - keepBegin) * bytes));
    }
  });
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Trilu"), triluFwd);
POPART_REGISTER_KERNEL(internalOp("TriluGrad"), triluFwd);
} // namespace popart::cpu
