// Slice: y[i_0..i_n-1] = x[b_0 + i_0 * s_0, ..., b_n-1 + i_n-1 * s_n-1]: one
// strided copy, whose unit-step inner runs are memcpy'd.
#include "ops/slice.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <memory>

namespace popart::cpu {
namespace {

class SliceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SliceOp>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    auto inStrides = rowMajorStrides(x.shape());
    int64_t offset = 0;
    for (size_t k = 0; k < inStrides.size(); ++k) {
      offset += op.begins()[k] * inStrides[k];
      inStrides[k] *= op.steps()[k];
    }
    auto copy = std::make_shared<StridedCopy>(y.shape(), inStrides, rowMajorStrides(y.shape()), offset, 0,
                                              dataTypeSize(x.dtype()));
    prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
  }
};

} // namespace
static popx::OpxCreator<SliceOpx> POPART_UNIQUE_NAME(sliceOpxCreator_)(onnxOp("Slice"));
} // namespace popart::cpu
