// Window geometry of Conv, ConvTranspose and the pooling ops (kernel_shape, strides,
// dilations, pads, auto_pad, ceil_mode), shared by shape inference, grad ops and kernels.
#pragma once
#include "popart/names.hpp"
#include <memory>

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

/// Reads strides/dilations/pads/auto_pad from `op`; `kernel` is the window size
/// (kernel_shape, or the weights' spatial shape). Throws popart::error on bad values.
WindowGeometry windowGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel, bool ceilMode = false);

/// ConvTranspose `op` (input spatial shape `inSpatial`) as the Conv whose data gradient it is:
/// `in` is the ConvTranspose output's spatial shape, `out` its input's; padsEnd is chosen >= 0 so
/// that windowGeometry on explicit pads gives the same `out` (output_padding folded in).
WindowGeometry convTransposeGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel);

/// Gradient op `type` of Conv/ConvTranspose `fwd` with geometry `g`: inputs dY (0) and, when
/// `other` >= 0, fwd input `other` (1); output: gradient of fwd input `wrt`. Its attributes are
/// `group` and g as explicit strides/dilations/pads, so windowGeometry(gradOp, g.in, g.kernel) == g.
std::unique_ptr<Op> makeConvGradOp(const std::string &type, const Op &fwd, const WindowGeometry &g, int other, int wrt);

} // namespace popart
