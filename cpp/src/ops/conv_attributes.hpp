// Window geometry of Conv, ConvTranspose and the pooling ops (kernel_shape, strides,
// dilations, pads, auto_pad, ceil_mode), shared by shape inference, grad ops and kernels.
#pragma once
#include "popart/names.hpp"
#include <memory>
#include <string>

namespace popart {

class Op;
class Attributes;

/// Per spatial dimension: out = (in + padBegin + padEnd - dilated kernel) / stride + 1,
/// rounded down (or up with ceil_mode, never starting a window in the end padding).
struct WindowGeometry {
  Shape in, kernel, strides, dilations, padsBegin, padsEnd, out;
  size_t rank() const { return in.size(); }
  int64_t dilatedKernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  /// End padding the last window really reaches (> padsEnd with ceil_mode).
  int64_t reachedPadEnd(size_t i) const { return (out[i] - 1) * strides[i] + dilatedKernel(i) - in[i] - padsBegin[i]; }
};

/// Attribute `name` of `op` with `rank` values (all `dflt` when absent); throws when the count differs.
Shape convIntsAttr(const Op &op, const std::string &name, size_t rank, int64_t dflt);

/// Window attributes as ONNX spells them; empty lists take the defaults (1s, 0 pads).
struct WindowAttributes {
  Shape strides, dilations, pads;
  std::string autoPad = "NOTSET";
};
WindowGeometry windowGeometry(const WindowAttributes &a, const Shape &inSpatial, const Shape &kernel,
                              bool ceilMode = false);

/// Reads strides/dilations/pads/auto_pad from `op`; `kernel` is the window size
/// (kernel_shape, or the weights' spatial shape). Throws popart::error on bad values.
WindowGeometry windowGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel, bool ceilMode = false);

/// ConvTranspose `op` (input spatial shape `inSpatial`) as the Conv whose data gradient it is:
/// `in` is the ConvTranspose output's spatial shape, `out` its input's; padsEnd is chosen >= 0 so
/// that windowGeometry on explicit pads gives the same `out` (output_padding folded in).
WindowGeometry convTransposeGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel);

/// Conv `conv` of MultiConv `op` (inputs X 3i, W 3i+1, B 3i+2): its slices of the flattened
/// strides/dilations/pads lists.
WindowGeometry multiConvGeometry(const Op &op, int conv);

/// Output shape [N, M, out...] of a convolution of input `xIndex` (X [N, C, in...]) by input `wIndex`
/// (W [M, C/group, k...]) under `op`'s Conv attributes; throws popart::error on inconsistent shapes.
Shape convOutputShape(const Op &op, InIndex xIndex, InIndex wIndex);

/// LpPool's exponent p: a FLOAT attribute in opset 1, an INT one later (default 2); either type is read.
double lpPoolExponent(const Op &op);

/// Gradient op `type` of Conv/ConvTranspose/MultiConv `fwd` with geometry `g`: inputs dY (0, the gradient
/// of fwd output `out`) and, when `other` >= 0, fwd input `other` (1); output: gradient of fwd input `wrt`.
/// Its attributes are g as explicit strides/dilations/pads, so windowGeometry(gradOp, g.in, g.kernel) == g
/// (the group follows from the shapes).
std::unique_ptr<Op> makeConvGradOp(const std::string &type, const Op &fwd, const WindowGeometry &g, int other, int wrt,
                                   int out = 0);

/// ConvFused op (internal, no gradient) with Conv `conv`'s settings and attributes and a final Relu when `relu`;
/// inputs as Conv's (X 0, W 1, optional B 2) plus an optional addend Z (3) of the output's shape.
std::unique_ptr<Op> makeConvFusedOp(const Op &conv, bool relu);

} // namespace popart
