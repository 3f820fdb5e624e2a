// Slice: y[i_0..i_n-1] = x[b_0 + i_0 * s_0, ..., b_n-1 + i_n-1 * s_n-1]: one
// strided copy, whose unit-step inner runs are memcpy'd. SliceGrad zeroes dx
// (unless the slice covers all of it) and runs the same copy from dy into dx.
#include "ops/slice.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
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

class SliceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SliceOp>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    SlicedLayout in(x.shape(), op.begins(), op.steps());
    auto copy = std::make_shared<StridedCopy>(y.shape(), in.strides, rowMajorStrides(y.shape()), in.offset, 0,
                                              dataTypeSize(x.dtype()));
    prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
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
