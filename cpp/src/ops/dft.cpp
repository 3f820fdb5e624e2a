// DFT (ai.onnx 17, 20) along `axis` (opset 17: attribute, default 1; opset 20:
// optional input 2, default -2) of a real [..., 1] or complex [..., 2] signal,
// zero-padded or truncated to L = dft_length (optional input 1, compile-time):
//   forward:  X[k] = sum_j x[j] exp(-2 pi i j k / L), k < L (onesided: L/2 + 1)
//   inverse:  x[j] = 1/L sum_k X[k] exp(+2 pi i j k / L), complex output;
//             inverse + onesided is the real inverse of a one-sided spectrum
//             (Hermitian extension; L defaults to 2 (n - 1)), output [..., L, 1].
// No gradient (inference only).
#include "ops/dft.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void DftOp::setup() {
  const Shape &x = inShape(0);
  const int64_t r = static_cast<int64_t>(x.size());
  if (r < 2 || (x.back() != 1 && x.back() != 2))
    throw error("input 0 must be [..., signal..., 1 or 2] (real or complex), got {}", inInfo(0).shapeString());
  int64_t axis = opid.version >= 20 ? (hasInput(2) ? inConstInts(2).at(0) : -2) : attr<Attributes::Int>("axis", 1);
  const int64_t a0 = axis;
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r - 1) throw error("axis {} is out of range for input 0 {}", a0, inInfo(0).shapeString());
  DftGeometry g;
  g.inverse = attr<Attributes::Int>("inverse", 0) != 0;
  g.onesided = attr<Attributes::Int>("onesided", 0) != 0;
  g.n = x[axis];
  g.inComponents = x.back();
  for (int64_t d = 0; d < axis; ++d) g.outer *= x[d];
  for (int64_t d = axis + 1; d < r - 1; ++d) g.inner *= x[d];
  g.length = g.inverse && g.onesided ? 2 * (g.n - 1) : g.n;
  if (hasInput(1)) g.length = inConstInts(1).at(0);
  if (g.length <= 0) throw error("the DFT length must be positive, got {}", g.length);
  g.outLen = g.onesided && !g.inverse ? g.length / 2 + 1 : g.length;
  Shape out = x;
  out[axis] = g.outLen;
  out.back() = g.inverse && g.onesided ? 1 : 2;
  geometry_ = g;
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

POPART_REGISTER_OP(DftOp, onnxOp("DFT", {17, 20}), floatTypes());
} // namespace popart
