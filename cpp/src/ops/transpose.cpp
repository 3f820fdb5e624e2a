// Transpose (ai.onnx 1, 13, 21): output axis k is input axis perm[k];
// perm defaults to the reversed axes. A real copy (see the tiled kernel).
// Gradient: dx = Transpose(dy, inverse perm), run by the same kernel.
#include "ops/transpose.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class TransposeGradOp final : public TransposeOp {  // input: dY
public:
  explicit TransposeGradOp(const TransposeOp &fwd) : TransposeOp(internalOp("TransposeGrad"), fwd.settings) {
    std::vector<int64_t> inverse(fwd.perm().size());
    for (size_t k = 0; k < inverse.size(); ++k) inverse[fwd.perm()[k]] = static_cast<int64_t>(k);
    attributes().setAttribute("perm", inverse);
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> m{{0, 0}};
    return m;
  }
};

} // namespace

void TransposeOp::setup() {
  const int64_t r = inRank(0);
  perm_ = attr<Attributes::Ints>("perm", {});
  if (!attributes().hasAttribute("perm"))
    for (int64_t i = r - 1; i >= 0; --i) perm_.push_back(i);
  std::vector<int64_t> sorted = perm_;
  std::sort(sorted.begin(), sorted.end());
  bool ok = static_cast<int64_t>(sorted.size()) == r;
  for (int64_t i = 0; ok && i < r; ++i) ok = sorted[i] == i;
  if (!ok) throw error("perm {} is not a permutation of the {} input axes", perm_, r);
  Shape out;
  for (int64_t p : perm_) out.push_back(inShape(0)[p]);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> TransposeOp::getGradOps() { return gradOps<TransposeGradOp>(*this); }

POPART_REGISTER_OP(TransposeOp, onnxOp("Transpose", {1, 13, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(TransposeGradOp, internalOp("TransposeGrad"));
} // namespace popart
