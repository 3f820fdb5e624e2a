// Pad: per axis a table maps each output index to a source index (or -1 for the
// constant), built once at grow(); each output row is then one memcpy of its
// in-range run plus table lookups (or the constant) at the padded ends.
#include "ops/pad.hpp"
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "dispatch.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>
#include <memory>

namespace popart::cpu {
namespace {

/// Source index in the cropped range [0, n) of padded index i, or -1.
int64_t padSource(int64_t i, int64_t n, PadOp::Mode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
  case PadOp::Mode::Constant: return -1;
  case PadOp::Mode::Edge: return i < 0 ? 0 : n - 1;
  case PadOp::Mode::Wrap: return ((i % n) + n) % n;
  case PadOp::Mode::Reflect: {
    if (n == 1) return 0;
    const int64_t p = 2 * (n - 1), m = ((i % p) + p) % p;
    return m < n ? m : p - m;
  }
  }
  return -1;
}

struct PadPlan {
  std::vector<std::vector<int64_t>> src;  // per axis: output index -> input index or -1
  Shape out;
  std::vector<int64_t> inStrides;
  int64_t rows = 1, rowLen = 1, runBegin = 0, runEnd = 0, runSrc = 0;  // identity run of a row

  PadPlan(const PadOp &op, const Shape &in) : out(op.outShape(0)), inStrides(rowMajorStrides(in)) {
    for (size_t a = 0; a < in.size(); ++a) {
      const int64_t lo = std::max<int64_t>(0, -op.padsBegin()[a]);
      const int64_t n = in[a] - lo - std::max<int64_t>(0, -op.padsEnd()[a]);
      const int64_t shift = std::max<int64_t>(0, op.padsBegin()[a]);
      std::vector<int64_t> t(out[a]);
      for (int64_t o = 0; o < out[a]; ++o) {
        const int64_t s = padSource(o - shift, n, op.mode());
        t[o] = s < 0 ? -1 : lo + s;
      }
      src.push_back(std::move(t));
    }
    if (out.empty()) return;
    rowLen = out.back();
    rows = shapeutil::product(out, 0, out.size() - 1);
    runSrc = std::max<int64_t>(0, -op.padsBegin().back());
    const int64_t kept = in.back() - runSrc - std::max<int64_t>(0, -op.padsEnd().back());
    runBegin = std::min(rowLen, std::max<int64_t>(0, op.padsBegin().back()));
    runEnd = std::min(rowLen, runBegin + std::max<int64_t>(0, kept));
  }

  template <class U> void run(const U *x, U *y, U fill) const {
    if (out.empty()) {
      y[0] = x[0];
      return;
    }
    const std::vector<int64_t> &last = src.back();
    popx::Opx::parallelFor(rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        U *yr = y + r * rowLen;
        int64_t off = 0, rem = r;
        bool inside = true;
        for (int64_t a = static_cast<int64_t>(out.size()) - 2; a >= 0 && inside; --a) {
          const int64_t s = src[a][rem % out[a]];
          rem /= out[a];
          inside = s >= 0;
          off += s * inStrides[a];
        }
        if (!inside) {
          std::fill(yr, yr + rowLen, fill);
          continue;
        }
        const U *xr = x + off;
        for (int64_t j = 0; j < runBegin; ++j) yr[j] = last[j] < 0 ? fill : xr[last[j]];
        std::memcpy(yr + runBegin, xr + runSrc, static_cast<size_t>(runEnd - runBegin) * sizeof(U));
        for (int64_t j = runEnd; j < rowLen; ++j) yr[j] = last[j] < 0 ? fill : xr[last[j]];
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowLen)));
  }
};

/// The attribute constant (Pad-2) as the raw bits of one element of type `t`.
uint64_t padConstantBits(DataType t, double v) {
  uint64_t bits = 0;
  dispatchAll(t, [&](auto tag) {
    using T = decltype(tag);
    T c;
    if constexpr (std::is_same_v<T, float16_t>) c = float16_t(static_cast<float>(v));
    else c = static_cast<T>(v);
    std::memcpy(&bits, &c, sizeof(T));
  });
  return bits;
}

class PadOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<PadOp>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    auto plan = std::make_shared<const PadPlan>(op, x.shape());
    const uint64_t bits = op.valueFromInput() ? 0 : padConstantBits(x.dtype(), op.valueAttr());
    popx::TensorView v = op.valueFromInput() ? getInTensor(2) : popx::TensorView();
    dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
      using U = decltype(tag);
      prog.add([plan, x, y, v, bits] {
        U fill;
        if (v.raw()) std::memcpy(&fill, v.raw(), sizeof(U));
        else std::memcpy(&fill, &bits, sizeof(U));
        plan->run(static_cast<const U *>(x.raw()), static_cast<U *>(y.raw()), fill);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<PadOpx> POPART_UNIQUE_NAME(padOpxCreator_)(onnxOp("Pad"));
} // namespace popart::cpu
