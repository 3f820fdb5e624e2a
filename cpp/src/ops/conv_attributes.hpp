// Window geometry of Conv and the pooling ops (kernel_shape, strides,
// dilations, pads, auto_pad, ceil_mode), shared by shape inference and kernels.
#pragma once
#include "popart/names.hpp"

namespace popart {

class Op;

/// Per spatial dimension: out = (in + padBegin + padEnd - dilated kernel) / stride + 1,
/// rounded down (or up with ceil_mode, never starting a window in the end padding).
struct WindowGeometry {
  Shape in, kernel, strides, dilations, padsBegin, padsEnd, out;
  size_t rank() const { return in.size(); }
  int64_t dilatedKernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
  /// End padding the last window really reaches (> padsEnd with ceil_mode).
  int64_t reachedPadEnd(size_t i) const { return (out[i] - 1) * strides[i] + dilatedKernel(i) - in[i] - padsBegin[i]; }
};

/// Reads strides/dilations/pads/auto_pad from `op`; `kernel` is the window size
/// (kernel_shape, or the weights' spatial shape). Throws popart::error on bad values.
WindowGeometry windowGeometry(const Op &op, const Shape &inSpatial, const Shape &kernel, bool ceilMode = false);

} // namespace popart
