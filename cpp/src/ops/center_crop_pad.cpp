// CenterCropPad (ai.onnx 18): y has x's shape except y.shape[axes[i]] =
// shape[i] (input 1, compile-time ints; axes default: all). Along each such axis
// x is centre-cropped when it is longer (start floor((in - out) / 2)) and
// centre-padded with zeros when it is shorter (start floor((out - in) / 2)):
//   y[j] = x[j + offset] where in range, else 0, offset per axis.
// Gradient: dx[i] = dy[i - offset] where in range (the same op with the roles
// of x and y swapped: CenterCropPadGrad).
#include "ops/center_crop_pad.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"

namespace popart {

std::vector<int64_t> centerCropPadOffsets(const Shape &in, const Shape &out) {
  std::vector<int64_t> off(in.size());
  for (size_t a = 0; a < in.size(); ++a)
    off[a] = in[a] >= out[a] ? (in[a] - out[a]) / 2 : -((out[a] - in[a]) / 2);
  return off;
}

namespace {

class CenterCropPadGradOp final : public ShapeGradOp {  // input: dY
public:
  explicit CenterCropPadGradOp(const Op &fwd) : ShapeGradOp(internalOp("CenterCropPadGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class CenterCropPadOp final : public Op {  // inputs: input_data, shape
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1}; }
  void setup() override {
    const int64_t r = inRank(0);
    const std::vector<int64_t> sizes = inConstInts(1);
    std::vector<int64_t> axes = attr<Attributes::Ints>("axes", {});
    if (!attributes().hasAttribute("axes"))
      for (int64_t a = 0; a < r; ++a) axes.push_back(a);
    if (sizes.size() != axes.size())
      throw error("input 1 (shape) has {} values for {} axes", sizes.size(), axes.size());
    Shape out = inShape(0);
    std::vector<bool> seen(static_cast<size_t>(r));
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
      if (a < 0 || a >= r || seen[a]) throw error("attribute axes {} is invalid for rank {}", axes, r);
      if (sizes[i] < 0) throw error("input 1 (shape) has a negative size {}", sizes[i]);
      seen[a] = true;
      out[a] = sizes[i];
    }
    outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<CenterCropPadGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(CenterCropPadOp, onnxOp("CenterCropPad", {18}), allTypes());
POPART_REGISTER_OP(CenterCropPadGradOp, internalOp("CenterCropPadGrad"));
} // namespace popart
