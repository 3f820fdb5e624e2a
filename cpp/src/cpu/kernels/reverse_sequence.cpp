// ReverseSequence: blocks of inner = prod(shape[2:]) elements; block (b, t) of y
// is block (b, len_b - 1 - t) of x for t < len_b, else block (b, t). The gradient
// (ReverseSequenceGrad, inputs dY and sequence_lens) is the same reversal.
#include "ops/shape_util.hpp"
#include "popart/cpu/kernel.hpp"
#include "dispatch.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

void reverseSequence(KernelContext &ctx) {
  const Shape &s = ctx.inInfo(0).shape();
  const bool batchFirst = ctx.op().attr<Attributes::Int>("batch_axis", 1) == 0;
  const int64_t batch = batchFirst ? s[0] : s[1], time = batchFirst ? s[1] : s[0];
  const int64_t bytes = shapeutil::product(s, 2, s.size()) * dataTypeSize(ctx.inInfo(0).dataType());
  auto lens = ctx.in<int64_t>(1);
  for (int64_t b = 0; b < batch; ++b)
    if (lens[b] < 0 || lens[b] > time)
      throw error("sequence_lens[{}] = {} out of range [0, {}]", b, lens[b], time);
  const char *x = static_cast<const char *>(ctx.inView(0).raw());
  char *y = static_cast<char *>(ctx.outView(0).raw());
  popx::Opx::parallelFor(batch * time, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t b = i / time, t = i % time, src = t < lens[b] ? lens[b] - 1 - t : t;
      const int64_t dst = batchFirst ? b * time + t : t * batch + b;
      const int64_t from = batchFirst ? b * time + src : src * batch + b;
      std::memcpy(y + dst * bytes, x + from * bytes, static_cast<size_t>(bytes));
    }
  }, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, bytes)));
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("ReverseSequence"), reverseSequence);
POPART_REGISTER_KERNEL(internalOp("ReverseSequenceGrad"), reverseSequence);
} // namespace popart::cpu
