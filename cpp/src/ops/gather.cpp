// Gather (ai.onnx 1, 11, 13): y[a.., j.., b..] = x[a.., k, b..], k = indices[j..]
// (+ d when negative); y's shape is x.shape[:axis] + indices.shape + x.shape[axis+1:].
// Gradient: dx = zeros, dx[a.., k, b..] += dy[a.., j.., b..] (scatter-add; none for indices).
#include "ops/gather.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void GatherOp::setup() {
  if (inRank(0) == 0) throw error("data must have rank >= 1");
  DataType it = inInfo(1).dataType();
  if (it != DataType::INT32 && it != DataType::INT64)
    throw error("indices have type {}, expected INT32 or INT64", inInfo(1).data_type());
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
  const Shape &x = inShape(0);
  Shape out(x.begin(), x.begin() + axis_);
  out.insert(out.end(), inShape(1).begin(), inShape(1).end());
  out.insert(out.end(), x.begin() + axis_ + 1, x.end());
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> GatherOp::getGradOps() { return gradOps<GatherGradOp>(*this); }

POPART_REGISTER_OP(GatherOp, onnxOp("Gather", {1, 11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(GatherGradOp, internalOp("GatherGrad"));
} // namespace popart
