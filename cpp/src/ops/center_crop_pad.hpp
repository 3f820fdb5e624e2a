// The per-axis source offsets of CenterCropPad, shared by the op and its kernel.
#pragma once
#include "popart/tensorinfo.hpp"
#include <vector>

namespace popart {
/// offset[a] with y[j] = x[j + offset[a]] along axis a: floor((in - out) / 2)
/// when cropping, -floor((out - in) / 2) when padding.
std::vector<int64_t> centerCropPadOffsets(const Shape &in, const Shape &out);
} // namespace popart
