// Slice: y[i_0..i_n-1] = x[b_0 + i_0 * s_0, ..., b_n-1 + i_n-1 * s_n-1]: one
// strided copy, whose unit-step inner runs are memcpy'd. SliceGrad zeroes dx
// (unless the slice covers all of it) and runs the same copy from dy into dx.
#include "ops/slice.hpp"
#include "popart/error.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <memory>

namespace popart::cpu {
namespace {

/// Strides (elements) and offset of the sliced positions of a tensor of shape `whole`.
struct SlicedLayout {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  SlicedLayout(const Shape &whole, const std::vector<int64_t> &begins, const std::vector<int64_t> &steps)
      : strides(rowMajorStrides(whole)) {
    for (size_t k = 0; k < strides.size(); ++k) {
      offset += begins[k] * strides[k];
      strides[k] *= steps[k];
    }
  }
};

// Run-time starts: ONNX normalisation (negative counts from the end, clamp to
// [0, size]) of starts and of ends = starts + length; the clamped slice must
// keep the static length.
int64_t dynamicOffset(const SliceOp &op, const popx::TensorView &starts, const Shape &in,
                      const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t j = 0; j < op.dynamicAxes().size(); ++j) {
    const int64_t a = op.dynamicAxes()[j], d = in[a], k = op.dynamicLengths()[j];
    const int64_t raw = starts.dtype() == DataType::INT32 ? static_cast<const int32_t *>(starts.raw())[j]
                                                          : static_cast<const int64_t *>(starts.raw())[j];
    auto clampIndex = [d](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + d : v, 0, d); };
    const int64_t s = clampIndex(raw), e = clampIndex(raw + k);
    if (e - s != k)
      throw runtime_error("Slice start {} on axis {} of size {} leaves {} of the {} elements the output holds", raw,
                          a, d, std::max<int64_t>(e - s, 0), k);
    offset += s * strides[a];
  }
  return offset;
}

class SliceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SliceOp>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    SlicedLayout in(x.shape(), op.begins(), op.steps());
    const int64_t elem = dataTypeSize(x.dtype());
    auto copy = std::make_shared<StridedCopy>(y.shape(), in.strides, rowMajorStrides(y.shape()), in.offset, 0, elem);
    if (!op.hasDynamicStarts()) {
      prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
      return;
    }
    popx::TensorView starts = getInTensor(1);
    prog.add([&op, x, y, starts, copy, elem, strides = in.strides] {
      const int64_t offset = dynamicOffset(op, starts, x.shape(), strides);
      copy->run(static_cast<const char *>(x.raw()) + offset * elem, y.raw());
    });
  }
};

class SliceGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SliceGradOp>();
    popx::TensorView dy = getInTensor(0), dx = getOutTensor(0);
    SlicedLayout out(dx.shape(), op.begins(), op.steps());
    auto copy = std::make_shared<StridedCopy>(dy.shape(), rowMajorStrides(dy.shape()), out.strides, 0, out.offset,
                                              dataTypeSize(dx.dtype()));
    const bool zero = dy.nelms() != dx.nelms();  // a slice of every element is a permutation
    prog.add([dy, dx, copy, zero] {
      if (zero) zeroBytes(dx.raw(), dx.nbytes());
      copy->run(dy.raw(), dx.raw());
    });
  }
};

} // namespace
static popx::OpxCreator<SliceOpx> POPART_UNIQUE_NAME(sliceOpxCreator_)(onnxOp("Slice"));
static popx::OpxCreator<SliceGradOpx> POPART_UNIQUE_NAME(sliceGradOpxCreator_)(internalOp("SliceGrad"));
} // namespace popart::cpu
