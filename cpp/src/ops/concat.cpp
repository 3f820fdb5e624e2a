// Concat (ai.onnx 1, 4, 11, 13): y = inputs joined along `axis` (default 1 in
// opset 1, required from 4; negative counts from the back). A real copy.
// Gradient: dx_i = the slice of dy that input i filled (one ConcatGrad each).
#include "ops/concat.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void ConcatOp::setup() {
  const int n = input->maxIndex();
  if (n == 0) throw error("Concat needs at least one input");
  if (opid.version >= 4 && !attributes().hasAttribute("axis")) throw error("attribute 'axis' is required");
  const TensorInfo &first = inInfo(0);
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 1), first.rank());
  Shape out = first.shape();
  out[axis_] = 0;
  for (InIndex i = 0; i < n; ++i) {
    if (!hasInput(i)) throw error("input {} is missing", i);
    const TensorInfo &x = inInfo(i);
    if (x.dataType() != first.dataType())
      throw error("input {} has type {}, input 0 has type {}", i, x.data_type(), first.data_type());
    bool same = x.rank() == first.rank();
    for (int64_t d = 0; same && d < x.rank(); ++d) same = d == axis_ || x.shape()[d] == first.shape()[d];
    if (!same)
      throw error("input {} has shape {}, which differs from input 0's {} outside axis {}", i, x.shape(),
                  first.shape(), axis_);
    out[axis_] += x.shape()[axis_];
  }
  outInfo(0) = TensorInfo(first.dataType(), out);
}

std::vector<std::unique_ptr<Op>> ConcatOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> ops;
  for (InIndex i = 0; i < input->maxIndex(); ++i) ops.push_back(std::make_unique<ConcatGradOp>(*this, i));
  return ops;
}

ConcatGradOp::ConcatGradOp(const ConcatOp &fwd, InIndex i)
    : ShapeGradOp(internalOp("ConcatGrad"), fwd, i), axis_(fwd.axis()) {
  for (InIndex k = 0; k < i; ++k) offset_ += fwd.inShape(k)[axis_];
}

POPART_REGISTER_OP(ConcatOp, onnxOp("Concat", {1, 4, 11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ConcatGradOp, internalOp("ConcatGrad"));
} // namespace popart
