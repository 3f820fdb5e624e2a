// Split: output i = x[..., o_i : o_i + split_i, ...] along the axis; one
// strided copy per output (contiguous runs of split_i * inner elements).
// SplitGrad is the reverse (a concat of the output gradients); when the node
// lacks some outputs, dx is zeroed first and their pieces stay zero.
#include "ops/split.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <memory>

namespace popart::cpu {
namespace {

class SplitOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SplitOp>();
    popx::TensorView x = getInTensor(0);
    const auto inStrides = rowMajorStrides(x.shape());
    const int64_t elem = dataTypeSize(x.dtype());
    std::vector<popx::TensorView> ys;
    auto copies = std::make_shared<std::vector<StridedCopy>>();
    int64_t offset = 0;
    for (size_t i = 0; i < op.splits().size(); ++i) {
      if (hasOutput(static_cast<OutIndex>(i))) {
        ys.push_back(getOutTensor(static_cast<OutIndex>(i)));
        const Shape &s = ys.back().shape();
        copies->emplace_back(s, inStrides, rowMajorStrides(s), offset * inStrides[op.axis()], 0, elem);
      }
      offset += op.splits()[i];
    }
    prog.add([x, ys, copies] {
      for (size_t i = 0; i < ys.size(); ++i) (*copies)[i].run(x.raw(), ys[i].raw());
    });
  }
};

class SplitGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<SplitGradOp>();
    popx::TensorView dx = getOutTensor(0);
    const auto dxStrides = rowMajorStrides(dx.shape());
    const int64_t elem = dataTypeSize(dx.dtype());
    std::vector<popx::TensorView> dys;
    auto copies = std::make_shared<std::vector<StridedCopy>>();
    bool zero = false;
    int64_t offset = 0;
    for (size_t i = 0; i < op.splits().size(); ++i) {
      const InIndex in = op.pieceInputs()[i];
      zero = zero || in < 0;
      if (in >= 0) {
        dys.push_back(getInTensor(in));
        const Shape &s = dys.back().shape();
        copies->emplace_back(s, rowMajorStrides(s), dxStrides, 0, offset * dxStrides[op.axis()], elem);
      }
      offset += op.splits()[i];
    }
    prog.add([dys, dx, copies, zero] {
      if (zero) zeroBytes(dx.raw(), dx.nbytes());
      for (size_t i = 0; i < dys.size(); ++i) (*copies)[i].run(dys[i].raw(), dx.raw());
    });
  }
};

} // namespace
static popx::OpxCreator<SplitOpx> POPART_UNIQUE_NAME(splitOpxCreator_)(onnxOp("Split"));
static popx::OpxCreator<SplitGradOpx> POPART_UNIQUE_NAME(splitGradOpxCreator_)(internalOp("SplitGrad"));
} // namespace popart::cpu
