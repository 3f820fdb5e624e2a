// NonMaxSuppression: the op's selection (ops/non_max_suppression.cpp) over the run's inputs, with the
// per-class lists allocated once in grow; a different count than at setup is an error.
#include "ops/non_max_suppression.hpp"
#include "popart/error.hpp"
#include "popart/popx/opx.hpp"
#include <memory>

namespace popart::cpu {
namespace {

class NonMaxSuppressionOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &b = inShape(0), &s = inShape(1);
    popx::TensorView none, boxes = getInTensor(0), scores = getInTensor(1), out = getOutTensor(0);
    popx::TensorView maxOut = hasInput(2) ? getInTensor(2) : none, iou = hasInput(3) ? getInTensor(3) : none,
                     score = hasInput(4) ? getInTensor(4) : none;
    const bool center = op_p->attr<Attributes::Int>("center_point_box", 0) == 1;
    const int64_t expected = outShape(0)[0];
    auto scratch = std::make_shared<NmsScratch>();
    scratch->candidates.reserve(static_cast<size_t>(b[1]));
    scratch->kept.reserve(static_cast<size_t>(b[1]));
    prog.add([=] {
      NmsProblem p{boxes.data<float>(), scores.data<float>(), b[0], s[1], b[1],
                   maxOut.raw() ? maxOut.data<int64_t>()[0] : 0, iou.raw() ? iou.data<float>()[0] : 0.0f,
                   score.raw() ? score.data<float>()[0] : 0.0f, score.raw() != nullptr, center};
      const int64_t n = nmsSelect(p, *scratch, out.data<int64_t>(), expected);
      if (n != expected) throw error("{} boxes are selected, {} at setup (the inputs changed)", n, expected);
    });
  }
};

} // namespace
static popx::OpxCreator<NonMaxSuppressionOpx> nonMaxSuppressionOpxCreator(onnxOp("NonMaxSuppression"));
} // namespace popart::cpu
