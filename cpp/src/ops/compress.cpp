// Compress (ai.onnx 9, 11): with x seen as [outer, dim, inner] around `axis`
// (x flattened to [1, n, 1] without it), y[o, k, i] = x[o, s[k], i] for the
// indices s with condition[s] true. Gradient: dx[o, s[k], i] = dy[o, k, i],
// zero elsewhere (CompressGrad).
#include "ops/compress.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void CompressOp::setup() {
  const Shape &s = inShape(0);
  if (inRank(1) != 1) throw error("input 1 (condition) must be 1-D, got shape {}", inInfo(1).shapeString());
  const std::vector<int64_t> cond = inConstInts(1);
  CompressLayout l;
  Shape out{0};
  int64_t axis = 0;
  if (attributes().hasAttribute("axis")) {
    const int64_t r = inRank(0), a = attr<Attributes::Int>("axis");
    axis = a < 0 ? a + r : a;
    if (axis < 0 || axis >= r) throw error("attribute axis {} is out of range for rank {}", a, r);
    for (int64_t d = 0; d < axis; ++d) l.outer *= s[d];
    for (int64_t d = axis + 1; d < r; ++d) l.inner *= s[d];
    l.dim = s[axis];
    out = s;
  } else {
    l.dim = inInfo(0).nelms();
  }
  if (static_cast<int64_t>(cond.size()) > l.dim)
    throw error("input 1 (condition) has {} values, more than the {} along the axis", cond.size(), l.dim);
  for (size_t i = 0; i < cond.size(); ++i)
    if (cond[i]) l.selected.push_back(static_cast<int64_t>(i));
  out[axis] = static_cast<int64_t>(l.selected.size());
  layout_ = std::move(l);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> CompressOp::getGradOps() { return gradOps<CompressGradOp>(*this); }

POPART_REGISTER_OP(CompressOp, onnxOp("Compress", {9, 11}), allTypes());
POPART_REGISTER_OP(CompressGradOp, internalOp("CompressGrad"));
} // namespace popart
