// Pad: per axis a table maps each output index to a source index, or -1 for the
// constant (built once at grow()); the rows are then gathered by TableGather.
// Negative pads crop first; the mode pads the cropped range. PadGrad applies the
// transpose of the same tables (mirrored/clamped/wrapped positions accumulate).
#include "ops/pad.hpp"
#include "axis_transpose.hpp"
#include "cast_narrow.hpp"
#include "dispatch.hpp"
#include "table_gather.hpp"
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

/// Per axis, the x index each output index reads (-1: the constant).
template <class P> std::vector<std::vector<int64_t>> padTables(const P &op, const Shape &in, const Shape &out) {
  std::vector<std::vector<int64_t>> tables;
  for (size_t a = 0; a < in.size(); ++a) {
    const int64_t lo = std::max<int64_t>(0, -op.padsBegin()[a]);
    const int64_t n = in[a] - lo - std::max<int64_t>(0, -op.padsEnd()[a]);
    const int64_t shift = std::max<int64_t>(0, op.padsBegin()[a]);
    std::vector<int64_t> t(out[a]);
    for (size_t o = 0; o < t.size(); ++o) {
      const int64_t s = padSource(static_cast<int64_t>(o) - shift, n, op.mode());
      t[o] = s < 0 ? -1 : lo + s;
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

class PadOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<PadOp>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    auto plan = std::make_shared<const TableGather>(x.shape(), padTables(op, x.shape(), y.shape()));
    const uint64_t bits = op.valueFromInput() ? 0 : fillBits(x.dtype(), op.valueAttr());
    popx::TensorView v = op.valueFromInput() ? getInTensor(2) : popx::TensorView();
    dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
      using U = decltype(tag);
      prog.add([plan, x, y, v, bits] {
        U fill;
        std::memcpy(&fill, v.raw() ? v.raw() : &bits, sizeof(U));
        plan->run(static_cast<const U *>(x.raw()), static_cast<U *>(y.raw()), fill);
      });
    });
  }
};

class PadGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &dy = inShape(0), &dx = outShape(0);
    auto tables = padTables(getOp<PadGradOp>(), dx, dy);
    std::vector<AxisTranspose> axes;
    for (size_t a = 0; a < dx.size(); ++a) axes.emplace_back(static_cast<int>(a), dx[a], dy[a], 1, tables[a]);
    growAxisTranspose(*this, prog, std::move(axes));
  }
};

} // namespace

static popx::OpxCreator<PadOpx> POPART_UNIQUE_NAME(padOpxCreator_)(onnxOp("Pad"));
static popx::OpxCreator<PadGradOpx> POPART_UNIQUE_NAME(padGradOpxCreator_)(internalOp("PadGrad"));
} // namespace popart::cpu
