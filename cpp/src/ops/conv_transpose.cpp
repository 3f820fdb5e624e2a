// ConvTranspose (ai.onnx 1, 11): the data gradient of a Conv, Y[n, c, o*s + k*d - padBegin] +=
// X[n, m, o] * W[m, c', k] (c = group(m) * C/G + c'), plus B[c]; output size
// s*(in-1) + output_padding + dilated kernel - padBegin - padEnd, or output_shape with pads derived from it.
// Gradients: ConvTransposeDataGrad dX = conv(dY, W); ConvTransposeWeightsGrad dW[m, c', k] =
// sum_{n, o} X[n, m, o] dY[n, c, o*s + k*d - padBegin]; ConvBiasGrad dB[c] = sum_{n, o} dY[n, c, o].
#include "conv_attributes.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

int64_t floorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

/// Output size and begin padding along dimension i, following ONNX's rules for output_shape and auto_pad.
void convTransposeDim(const Op &op, WindowGeometry &g, size_t i, int64_t x, int64_t outPad, const Shape &outShape,
                      const std::string &autoPad) {
  int64_t full = g.strides[i] * (x - 1) + outPad + g.dilatedKernel(i);
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!outShape.empty() || same) {
    g.in[i] = outShape.empty() ? x * g.strides[i] : outShape[i];
    int64_t total = full - g.in[i];
    g.padsBegin[i] = autoPad == "SAME_UPPER" ? floorDiv2(total) : total - floorDiv2(total);
  } else {
    if (autoPad == "VALID") g.padsBegin[i] = g.padsEnd[i] = 0;
    g.in[i] = full - g.padsBegin[i] - g.padsEnd[i];
  }
  if (g.padsBegin[i] < 0 || g.in[i] < 1)
    throw error("{}: output size {} along spatial dimension {} needs begin padding {} (must be >= 0)", op.opid.type,
                g.in[i], i, g.padsBegin[i]);
  // End padding of the equivalent Conv: what the last window reaches, raised to >= 0 within one stride.
  int64_t reached = (x - 1) * g.strides[i] + g.dilatedKernel(i) - g.padsBegin[i] - g.in[i];
  if (reached + g.strides[i] - 1 < 0)
    throw error("{}: output_padding/output_shape extends spatial dimension {} by {}, more than stride - 1 = {}",
                op.opid.type, i, -reached, g.strides[i] - 1);
  g.padsEnd[i] = std::max<int64_t>(reached, 0);
}

} // namespace

WindowGeometry convTransposeGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel) {
  size_t r = inSpatial.size();
  if (kernel.size() != r) throw error("kernel has {} dimensions, input has {} spatial dimensions", kernel.size(), r);
  WindowGeometry g;
  g.out = inSpatial;
  g.kernel = kernel;
  g.strides = convIntsAttr(op, "strides", r, 1);
  g.dilations = convIntsAttr(op, "dilations", r, 1);
  Shape pads = convIntsAttr(op, "pads", 2 * r, 0), outPad = convIntsAttr(op, "output_padding", r, 0);
  g.padsBegin.assign(pads.begin(), pads.begin() + r);
  g.padsEnd.assign(pads.begin() + r, pads.end());
  g.in.assign(r, 0);
  Shape outShape = op.attr<Attributes::Ints>("output_shape", {});
  if (outShape.size() == r + 2) outShape.erase(outShape.begin(), outShape.begin() + 2);
  if (!outShape.empty() && outShape.size() != r)
    throw error("attribute output_shape has {} values, expected {} (or {})", outShape.size(), r, r + 2);
  auto autoPad = op.attr<Attributes::String>("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    throw error("attribute auto_pad has unsupported value '{}' (expected NOTSET, VALID, SAME_UPPER or SAME_LOWER)",
                autoPad);
  for (size_t i = 0; i < r; ++i) {
    if (g.strides[i] < 1 || g.dilations[i] < 1 || g.kernel[i] < 1 || g.padsBegin[i] < 0 || g.padsEnd[i] < 0 ||
        outPad[i] < 0)
      throw error("invalid window: kernel {}, strides {}, dilations {}, pads {}, output_padding {}", kernel, g.strides,
                  g.dilations, pads, outPad);
    convTransposeDim(op, g, i, inSpatial[i], outPad[i], outShape, autoPad);
  }
  return g;
}

namespace {

class ConvTransposeOp final : public Op {  // inputs: X (0), W (1), B (2, optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    auto g = geometry();
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(makeConvGradOp("ConvTransposeDataGrad", *this, g, 1, 0));
    v.push_back(makeConvGradOp("ConvTransposeWeightsGrad", *this, g, 0, 1));
    if (hasInput(2)) v.push_back(makeConvGradOp("ConvBiasGrad", *this, g, -1, 2));
    return v;
  }
  void setup() override {
    const auto &x = inInfo(0), &w = inInfo(1);
    if (x.rank() < 3 || x.rank() > 5) throw error("ConvTranspose input X must be 3-D, 4-D or 5-D, got {}", x.shape());
    if (w.rank() != x.rank())
      throw error("ConvTranspose weights W {} must have the rank of X {}", w.shape(), x.shape());
    if (w.dataType() != x.dataType())
      throw error("inputs have different types: {} and {}", x.data_type(), w.data_type());
    int64_t group = attr<Attributes::Int>("group", 1), outChannels = w.dim(1) * group;
    if (group < 1 || x.dim(1) % group != 0 || w.dim(0) != x.dim(1))
      throw error("group {} does not fit X channels {} and W {} (W[0] must be the channels of X, divisible by group)",
                  group, x.dim(1), w.shape());
    if (hasInput(2) && inInfo(2).shape() != Shape{outChannels})
      throw error("bias B {} must have shape [{}]", inInfo(2).shape(), outChannels);
    Shape kernel(w.shape().begin() + 2, w.shape().end());
    if (attributes().hasAttribute("kernel_shape") && attr<Attributes::Ints>("kernel_shape") != kernel)
      throw error("attribute kernel_shape {} differs from the weights' spatial shape {}",
                  attr<Attributes::Ints>("kernel_shape"), kernel);
    auto g = geometry();
    Shape out{x.dim(0), outChannels};
    out.insert(out.end(), g.in.begin(), g.in.end());
    outInfo(0) = TensorInfo(x.dataType(), out);
  }

private:
  WindowGeometry geometry() const {
    const auto &x = inShape(0), &w = inShape(1);
    return convTransposeGeometry(*this, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()));
  }
};

} // namespace
POPART_REGISTER_OP(ConvTransposeOp, onnxOp("ConvTranspose", {1, 11}), floatTypes());
} // namespace popart
