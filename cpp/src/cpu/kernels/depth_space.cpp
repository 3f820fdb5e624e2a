// DepthToSpace / SpaceToDepth: one strided copy of the transposed 6-d view
// (built once at grow(); contiguous inner runs are memcpy'd). The gradient is the
// same copy with the inverse permutation.
#include "ops/depth_space.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <memory>

namespace popart::cpu {
namespace {

template <class OP> class BlockRearrangeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<OP>();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    const std::vector<int64_t> inStrides = rowMajorStrides(op.view());
    Shape outView;
    std::vector<int64_t> srcStrides;
    for (int64_t p : op.perm()) outView.push_back(op.view()[p]), srcStrides.push_back(inStrides[p]);
    auto copy = std::make_shared<StridedCopy>(outView, srcStrides, rowMajorStrides(outView), 0, 0,
                                              dataTypeSize(x.dtype()));
    prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
  }
};

} // namespace
static popx::OpxCreator<BlockRearrangeOpx<BlockRearrangeOp>> POPART_UNIQUE_NAME(blockRearrangeOpxCreator_)(
    std::vector<OperatorIdentifier>{onnxOp("DepthToSpace"), onnxOp("SpaceToDepth")});
static popx::OpxCreator<BlockRearrangeOpx<BlockRearrangeGradOp>> POPART_UNIQUE_NAME(blockRearrangeGradOpxCreator_)(
    internalOp("BlockRearrangeGrad"));
} // namespace popart::cpu
