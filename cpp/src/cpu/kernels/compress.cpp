// Compress kernel: copies the selected [inner] blocks of x, seen as
// [outer, dim, inner], into y [outer, selected, inner]; CompressGrad zeroes dx
// and copies dy's blocks back to the selected positions. Blocks in parallel.
#include "ops/compress.hpp"
#include "popart/cpu/kernel.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

/// For every (outer o, selected k): copies block `packed` (o, k) to or from block (o, s[k]) of `full`.
void copyBlocks(const CompressLayout &l, int64_t bytes, const char *src, char *dst, bool toPacked) {
  const int64_t n = static_cast<int64_t>(l.selected.size()), block = l.inner * bytes;
  popx::Opx::parallelFor(l.outer * n, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t o = p / n, full = (o * l.dim + l.selected[p % n]) * block, packed = p * block;
      std::memcpy(dst + (toPacked ? packed : full), src + (toPacked ? full : packed), static_cast<size_t>(block));
    }
  }, 64);
}

void compressFwd(KernelContext &ctx) {
  copyBlocks(ctx.op<CompressOp>().layout(), dataTypeSize(ctx.inInfo(0).dataType()),
             static_cast<const char *>(ctx.inView(0).raw()), static_cast<char *>(ctx.outView(0).raw()), true);
}

void compressGrad(KernelContext &ctx) {
  std::memset(ctx.outView(0).raw(), 0, static_cast<size_t>(ctx.outView(0).nbytes()));
  copyBlocks(ctx.op<CompressGradOp>().layout(), dataTypeSize(ctx.inInfo(0).dataType()),
             static_cast<const char *>(ctx.inView(0).raw()), static_cast<char *>(ctx.outView(0).raw()), false);
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Compress"), compressFwd);
POPART_REGISTER_KERNEL(internalOp("CompressGrad"), compressGrad);
} // namespace popart::cpu
