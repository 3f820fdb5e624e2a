// Conv (ai.onnx 1, 11): Y[n, m, o] = B[m] + sum_{c in group(m), k} X[n, c, o*s + k*d - padBegin] * W[m, c, k],
// 1-D/2-D/3-D, with groups, dilations, strides, pads and auto_pad (window rules in conv_attributes.hpp).
// Gradients: ConvDataGrad dX = conv_transpose(dY, W) (oneDNN backward-data), ConvWeightsGrad
// dW[m, c, k] = sum_{n, o} dY[n, m, o] X[n, c, o*s + k*d - padBegin], ConvBiasGrad dB[m] = sum_{n, o} dY[n, m, o].
// ConvFlipWeights (ai.graphcore 1, attribute group G): W [M, C/G, k...] -> [C, M/G, k...] with
// Y[g*C/G + c, m, k] = W[g*M/G + m, c, K-1-k], the weights of the data-gradient convolution; it is its own
// inverse, so its gradient (ConvFlipWeightsGrad) is the same transform of dY.
// ConvFused (internal, inference only): Y = relu?(bn?(Conv(X, W, B)) + Z?), see patterns/conv_fusion.cpp.
#include "conv_attributes.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>

namespace popart {

Shape convIntsAttr(const Op &op, const std::string &name, size_t rank, int64_t dflt) {
  auto v = op.attr<Attributes::Ints>(name, Shape(rank, dflt));
  if (v.size() != rank) throw error("attribute {} has {} values, expected {}", name, v.size(), rank);
  return v;
}

Shape convOutputShape(const Op &op, InIndex xIndex, InIndex wIndex) {
  const auto &x = op.inInfo(xIndex), &w = op.inInfo(wIndex);
  if (x.rank() < 3 || x.rank() > 5) throw error("Conv input X must be 3-D, 4-D or 5-D, got {}", x.shape());
  if (w.rank() != x.rank()) throw error("Conv weights W {} must have the rank of X {}", w.shape(), x.shape());
  int64_t group = op.attr<Attributes::Int>("group", 1), m = w.dim(0);
  if (group < 1 || x.dim(1) % group != 0 || m % group != 0 || x.dim(1) / group != w.dim(1))
    throw error("group {} does not fit X channels {} and W {} (W[1] must be channels/group)", group, x.dim(1),
                w.shape());
  Shape kernel(w.shape().begin() + 2, w.shape().end());
  if (op.attributes().hasAttribute("kernel_shape") && op.attr<Attributes::Ints>("kernel_shape") != kernel)
    throw error("attribute kernel_shape {} differs from the weights' spatial shape {}",
                op.attr<Attributes::Ints>("kernel_shape"), kernel);
  auto g = windowGeometry(op, Shape(x.shape().begin() + 2, x.shape().end()), kernel);
  Shape out{x.dim(0), m};
  out.insert(out.end(), g.out.begin(), g.out.end());
  return out;
}

namespace {

void windowSamePads(WindowGeometry &g, size_t i, bool upper) {
  g.out[i] = (g.in[i] + g.strides[i] - 1) / g.strides[i];
  int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * g.strides[i] + g.dilatedKernel(i) - g.in[i]);
  g.padsBegin[i] = upper ? total / 2 : total - total / 2;
  g.padsEnd[i] = total - g.padsBegin[i];
}

void windowExplicitPads(WindowGeometry &g, size_t i, bool ceilMode) {
  int64_t span = g.in[i] + g.padsBegin[i] + g.padsEnd[i] - g.dilatedKernel(i);
  if (span < 0) return;  // reported by the caller as an empty output
  g.out[i] = (ceilMode ? (span + g.strides[i] - 1) / g.strides[i] : span / g.strides[i]) + 1;
  if (ceilMode && (g.out[i] - 1) * g.strides[i] >= g.in[i] + g.padsBegin[i]) --g.out[i];
}

} // namespace

WindowGeometry windowGeometry(const WindowAttributes &a, const Shape &inSpatial, const Shape &kernel, bool ceilMode) {
  size_t r = inSpatial.size();
  if (kernel.size() != r) throw error("kernel has {} dimensions, input has {} spatial dimensions", kernel.size(), r);
  WindowGeometry g;
  g.in = inSpatial;
  g.kernel = kernel;
  g.strides = a.strides.empty() ? Shape(r, 1) : a.strides;
  g.dilations = a.dilations.empty() ? Shape(r, 1) : a.dilations;
  Shape pads = a.pads.empty() ? Shape(2 * r, 0) : a.pads;
  if (g.strides.size() != r || g.dilations.size() != r || pads.size() != 2 * r)
    throw error("strides {}, dilations {} and pads {} do not fit {} spatial dimensions", g.strides, g.dilations,
                pads, r);
  g.padsBegin.assign(pads.begin(), pads.begin() + r);
  g.padsEnd.assign(pads.begin() + r, pads.end());
  g.out.assign(r, 0);
  const auto &autoPad = a.autoPad;
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    throw error("attribute auto_pad has unsupported value '{}' (expected NOTSET, VALID, SAME_UPPER or SAME_LOWER)",
                autoPad);
  for (size_t i = 0; i < r; ++i) {
    if (g.strides[i] < 1 || g.dilations[i] < 1 || g.kernel[i] < 1 || g.padsBegin[i] < 0 || g.padsEnd[i] < 0)
      throw error("invalid window: kernel {}, strides {}, dilations {}, pads {}", kernel, g.strides, g.dilations, pads);
    // Bounded so that no window arithmetic overflows 64 bits (dilated kernels, padded extents).
    constexpr int64_t limit = int64_t(1) << 31;
    if (g.strides[i] > limit || g.dilations[i] > limit || g.kernel[i] > limit || g.padsBegin[i] > limit ||
        g.padsEnd[i] > limit || g.in[i] > (int64_t(1) << 60))
      throw error("window too large: kernel {}, strides {}, dilations {}, pads {} (each value at most 2^31)",
                  kernel, g.strides, g.dilations, pads);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      windowSamePads(g, i, autoPad == "SAME_UPPER");
      continue;
    }
    if (autoPad == "VALID") g.padsBegin[i] = g.padsEnd[i] = 0;
    windowExplicitPads(g, i, ceilMode);
    if (g.out[i] < 1)
      throw error("spatial dimension {} of size {} is smaller than the dilated kernel {} plus padding", i, g.in[i],
                  g.dilatedKernel(i));
  }
  return g;
}

WindowGeometry windowGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel, bool ceilMode) {
  size_t r = inSpatial.size();
  WindowAttributes a{convIntsAttr(op, "strides", r, 1), convIntsAttr(op, "dilations", r, 1),
                     convIntsAttr(op, "pads", 2 * r, 0), op.attr<Attributes::String>("auto_pad", "NOTSET")};
  return windowGeometry(a, inSpatial, kernel, ceilMode);
}

namespace {

/// Output of Conv-like `op` (X 0, W 1, optional B 2, Conv's attributes), checking the inputs.
TensorInfo convOutInfo(const Op &op) {
  const auto &x = op.inInfo(0), &w = op.inInfo(1);
  if (w.dataType() != x.dataType()) throw error("inputs have different types: {} and {}", x.data_type(), w.data_type());
  const Shape out = convOutputShape(op, 0, 1);
  if (op.hasInput(2) && op.inInfo(2).shape() != Shape{out[1]})
    throw error("bias B {} must have shape [{}]", op.inInfo(2).shape(), out[1]);
  return TensorInfo(x.dataType(), out);
}

class ConvGradOp final : public Op {
public:
  ConvGradOp(const std::string &type, const Op &fwd, const WindowGeometry &g, int other, int wrt, int out)
      : Op(internalOp(type), fwd.settings), gradInfo_(fwd.inInfo(wrt)) {
    attributes().setAttribute("strides", g.strides);
    attributes().setAttribute("dilations", g.dilations);
    Shape pads = g.padsBegin;
    pads.insert(pads.end(), g.padsEnd.begin(), g.padsEnd.end());
    attributes().setAttribute("pads", pads);
    inputs_.push_back({0, out, GradOpInType::GradOut});
    if (other >= 0) inputs_.push_back({1, other, GradOpInType::In});
    outputs_[0] = wrt;
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = gradInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return inputs_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outputs_; }

private:
  TensorInfo gradInfo_;
  std::vector<GradInOutMapper> inputs_;
  std::map<int, int> outputs_;
};

class ConvOp final : public Op {  // inputs: X (0), W (1), B (2, optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    const auto &x = inShape(0), &w = inShape(1);
    auto g = windowGeometry(*this, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()));
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(makeConvGradOp("ConvDataGrad", *this, g, 1, 0));
    v.push_back(makeConvGradOp("ConvWeightsGrad", *this, g, 0, 1));
    if (hasInput(2)) v.push_back(makeConvGradOp("ConvBiasGrad", *this, g, -1, 2));
    return v;
  }
  void setup() override { outInfo(0) = convOutInfo(*this); }
};

/// Conv with its BatchNormalization/Add/Relu consumers folded in (made by the ConvFusion pattern): Conv's
/// inputs and attributes, plus "relu" (0/1), an optional addend Z (input 3) of Y's shape and optional
/// inference BatchNormalization parameters scale, B, mean, var (inputs 4-7) with attribute "epsilon".
class ConvFusedOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    outInfo(0) = convOutInfo(*this);
    if (hasInput(3) && inInfo(3) != outInfo(0))
      throw error("addend Z {} must match the convolution output {}", inInfo(3).toString(), outInfo(0).toString());
    for (InIndex i = 4; i < 8; ++i)  // a folded BatchNormalization: scale, B, mean, var per output channel
      if (hasInput(i) && (inInfo(i).shape() != Shape{outInfo(0).dim(1)} || inInfo(i).dataType() != outInfo(0).dataType()))
        throw error("normalisation parameter {} {} must be [{}] of type {}", i, inInfo(i).toString(),
                    outInfo(0).dim(1), outInfo(0).data_type());
  }
};

class ConvFlipWeightsGradOp final : public Op {
public:
  explicit ConvFlipWeightsGradOp(const Op &fwd)
      : Op(internalOp("ConvFlipWeightsGrad"), fwd.settings), gradInfo_(fwd.inInfo(0)) {
    attributes().setAttribute("group", fwd.attr<Attributes::Int>("group", 1));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = gradInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }

private:
  TensorInfo gradInfo_;
};

class ConvFlipWeightsOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ConvFlipWeightsGradOp>(*this); }
  void setup() override {
    const auto &w = inInfo(0);
    int64_t group = attr<Attributes::Int>("group", 1);
    if (w.rank() < 3) throw error("ConvFlipWeights input W must be [M, C/group, k...], got {}", w.shape());
    if (group < 1 || w.dim(0) % group != 0)
      throw error("group {} does not divide the {} output channels of W {}", group, w.dim(0), w.shape());
    Shape out = w.shape();
    out[0] = w.dim(1) * group;
    out[1] = w.dim(0) / group;
    outInfo(0) = TensorInfo(w.dataType(), out);
  }
};

} // namespace

std::unique_ptr<Op> makeConvGradOp(const std::string &type, const Op &fwd, const WindowGeometry &g, int other, int wrt,
                                   int out) {
  return std::make_unique<ConvGradOp>(type, fwd, g, other, wrt, out);
}

std::unique_ptr<Op> makeConvFusedOp(const Op &conv, bool relu) {
  auto op = std::make_unique<ConvFusedOp>(internalOp("ConvFused"), conv.settings);
  op->attributes() = conv.attributes();
  op->attributes().setAttribute("relu", Attributes::Int(relu));
  return op;
}

POPART_REGISTER_OP(ConvOp, onnxOp("Conv", {1, 11}), floatTypes());
POPART_REGISTER_OP(ConvFusedOp, internalOp("ConvFused"));
POPART_REGISTER_OP(ConvFlipWeightsOp, graphcoreOp("ConvFlipWeights", {1}), floatTypes());
POPART_REGISTER_OP(ConvFlipWeightsGradOp, internalOp("ConvFlipWeightsGrad"));
POPART_REGISTER_OP(ConvGradOp, internalOp("ConvDataGrad"));
POPART_REGISTER_OP(ConvGradOp, internalOp("ConvWeightsGrad"));
POPART_REGISTER_OP(ConvGradOp, internalOp("ConvBiasGrad"));
POPART_REGISTER_OP(ConvGradOp, internalOp("ConvTransposeDataGrad"));
POPART_REGISTER_OP(ConvGradOp, internalOp("ConvTransposeWeightsGrad"));
} // namespace popart
