// GridSample (ai.onnx 16, 20, 22): y[n, c, p] = x[n, c] sampled at the
// normalised location grid[n, p, :] in [-1, 1] (component k addresses the k-th
// spatial dimension from the last: x, y, z). A location maps to pixels as
// (g + 1) / 2 * (size - 1) with align_corners, else ((g + 1) * size - 1) / 2;
// mode nearest (round half to even), linear (2 taps per axis) or cubic (4 taps,
// Keys a = -0.75); padding_mode zeros (outside pixels are 0), border (clamp)
// or reflection (mirror at the borders). Opset 16 is 2-D only with mode names
// bilinear/bicubic. No gradient (inference only).
#include "ops/grid_sample.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void GridSampleOp::setup() {
  const int64_t r = inRank(0), nd = r - 2;
  const Shape &g = inShape(1);
  if (r < 3 || r > 5 || (opid.version < 20 && r != 4))
    throw error("input 0 must be [N, C, spatial...] with 1 to 3 spatial dimensions (opset 16: 2), got {}",
                inInfo(0).shapeString());
  if (static_cast<int64_t>(g.size()) != r || g[0] != inShape(0)[0] || g.back() != nd)
    throw error("input 1 (grid) must be [N, out spatial..., {}] with N = {}, got {}", nd, inShape(0)[0],
                inInfo(1).shapeString());
  if (inInfo(1).dataType() != inInfo(0).dataType()) throw error("input 1 (grid) must have input 0's type");
  const auto m = attr<Attributes::String>("mode", opid.version < 20 ? "bilinear" : "linear");
  if (m == "nearest") mode_ = Mode::Nearest;
  else if (m == (opid.version < 20 ? "bilinear" : "linear")) mode_ = Mode::Linear;
  else if (m == (opid.version < 20 ? "bicubic" : "cubic") && nd == 2) mode_ = Mode::Cubic;
  else throw error("attribute mode '{}' is not supported here (opset {}: nearest, {}; cubic for 2-D only)", m,
                   opid.version, opid.version < 20 ? "bilinear, bicubic" : "linear, cubic");
  const auto p = attr<Attributes::String>("padding_mode", "zeros");
  if (p == "zeros") padding_ = Padding::Zeros;
  else if (p == "border") padding_ = Padding::Border;
  else if (p == "reflection") padding_ = Padding::Reflection;
  else throw error("attribute padding_mode must be zeros, border or reflection, got '{}'", p);
  Shape out{inShape(0)[0], inShape(0)[1]};
  out.insert(out.end(), g.begin() + 1, g.end() - 1);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

POPART_REGISTER_OP(GridSampleOp, onnxOp("GridSample", {16, 20, 22}), floatTypes());
} // namespace popart
