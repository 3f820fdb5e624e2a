// Slice (ai.onnx 1: starts/ends/axes attributes; 10, 11, 13: constant inputs
// starts, ends, axes, steps). Negative starts/ends count from the end, then
// clamp to [0, d] (step > 0) or [-1, d-1] (step < 0); size = ceil((e - s) / step).
// Gradient: dx = zeros with dy scattered back into the sliced positions.
#include "ops/slice.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

SliceOp::Request SliceOp::request() const {
  Request r;
  if (opid.version < 10) {
    r.starts = attr<Attributes::Ints>("starts");
    r.ends = attr<Attributes::Ints>("ends");
    r.axes = attr<Attributes::Ints>("axes", {});
  } else {
    for (const char *name : {"starts", "ends", "axes"})
      if (attributes().hasAttribute(name)) throw error("'{}' is an input since opset 10, not an attribute", name);
    r.starts = inConstInts(1);
    r.ends = inConstInts(2);
    if (hasInput(3)) r.axes = inConstInts(3);
    if (hasInput(4)) r.steps = inConstInts(4);
  }
  if (!hasInput(3) && r.axes.empty())
    for (size_t i = 0; i < r.starts.size(); ++i) r.axes.push_back(static_cast<int64_t>(i));
  if (r.steps.empty()) r.steps.assign(r.starts.size(), 1);
  if (r.ends.size() != r.starts.size() || r.axes.size() != r.starts.size() || r.steps.size() != r.starts.size())
    throw error("starts {}, ends {}, axes {} and steps {} must have the same length", r.starts, r.ends, r.axes,
                r.steps);
  return r;
}

void SliceOp::setup() {
  Request r = request();
  const Shape &in = inShape(0);
  std::vector<int64_t> axes = shapeutil::normaliseAxes(r.axes, inRank(0));
  Shape out = in;
  begins_.assign(in.size(), 0);
  steps_.assign(in.size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i], d = in[a], step = r.steps[i];
    if (step == 0) throw error("steps {} contain 0", r.steps);
    int64_t s = r.starts[i] < 0 ? r.starts[i] + d : r.starts[i];
    int64_t e = r.ends[i] < 0 ? r.ends[i] + d : r.ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, d), e = std::clamp<int64_t>(e, 0, d);
      out[a] = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1), e = std::clamp<int64_t>(e, -1, d - 1);
      out[a] = s > e && d > 0 ? (s - e - 1) / -step + 1 : 0;
    }
    begins_[a] = out[a] > 0 ? s : 0;
    steps_[a] = step;
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> SliceOp::getGradOps() { return gradOps<SliceGradOp>(*this); }

POPART_REGISTER_OP(SliceOp, onnxOp("Slice", {1, 10, 11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(SliceGradOp, internalOp("SliceGrad"));
} // namespace popart
