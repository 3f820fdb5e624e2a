// Transpose (ai.onnx 1, 13, 21): output axis k is input axis perm[k];
// perm defaults to the reversed axes. A real copy (see the tiled kernel).
#include "ops/transpose.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

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

POPART_REGISTER_OP(TransposeOp, onnxOp("Transpose", {1, 13, 21}), shapeutil::copyableTypes());
} // namespace popart
