// Concat: input i goes to y[..., off_i : off_i + d_i, ...] along the axis;
// each input is one strided copy (contiguous runs of d_i * inner elements).
// ConcatGrad is the reverse copy: dx_i = dy[..., off_i : off_i + d_i, ...].
#include "ops/concat.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <memory>

namespace popart::cpu {
namespace {

class ConcatOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t axis = getOp<ConcatOp>().axis();
    popx::TensorView y = getOutTensor(0);
    const auto outStrides = rowMajorStrides(y.shape());
    const int64_t elem = dataTypeSize(y.dtype());
    std::vector<popx::TensorView> xs;
    auto copies = std::make_shared<std::vector<StridedCopy>>();
    int64_t offset = 0;
    for (InIndex i = 0; i < op_p->input->maxIndex(); ++i) {
      xs.push_back(getInTensor(i));
      const Shape &s = xs.back().shape();
      copies->emplace_back(s, rowMajorStrides(s), outStrides, 0, offset * outStrides[axis], elem);
      offset += s[axis];
    }
    prog.add([xs, y, copies] {
      for (size_t i = 0; i < xs.size(); ++i) (*copies)[i].run(xs[i].raw(), y.raw());
    });
  }
};

class ConcatGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ConcatGradOp>();
    popx::TensorView dy = getInTensor(0), dx = getOutTensor(0);
    const auto dyStrides = rowMajorStrides(dy.shape());
    auto copy = std::make_shared<StridedCopy>(dx.shape(), dyStrides, rowMajorStrides(dx.shape()),
                                              op.offset() * dyStrides[op.axis()], 0, dataTypeSize(dx.dtype()));
    prog.add([dy, dx, copy] { copy->run(dy.raw(), dx.raw()); });
  }
};

} // namespace
static popx::OpxCreator<ConcatOpx> POPART_UNIQUE_NAME(concatOpxCreator_)(onnxOp("Concat"));
static popx::OpxCreator<ConcatGradOpx> POPART_UNIQUE_NAME(concatGradOpxCreator_)(internalOp("ConcatGrad"));
} // namespace popart::cpu
