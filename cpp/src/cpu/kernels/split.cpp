// Split: output i = x[..., o_i : o_i + split_i, ...] along the axis; one
// strided copy per output (contiguous runs of split_i * inner elements).
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

} // namespace
static popx::OpxCreator<SplitOpx> POPART_UNIQUE_NAME(splitOpxCreator_)(onnxOp("Split"));
} // namespace popart::cpu
