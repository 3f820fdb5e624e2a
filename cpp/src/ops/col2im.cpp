// Col2Im (ai.onnx 18): the inverse layout of im2col with overlaps summed.
// x is [N, C * prod(block_shape), L] with L = prod over axes of
//   cols = (image + pad_begin + pad_end - dilation * (block - 1) - 1) / stride + 1;
// y [N, C, image_shape...] starts at zero and, for every block offset k and
// column position l, y[n, c, l * stride - pad_begin + k * dilation] += x[n, c * K + k, l]
// (out-of-image positions dropped). image_shape and block_shape are compile-time
// inputs 1 and 2. No gradient (inference only).
#include "ops/col2im.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void Col2ImOp::setup() {
  const std::vector<int64_t> image = inConstInts(1), block = inConstInts(2);
  const size_t nd = image.size();
  if (nd == 0 || block.size() != nd)
    throw error("inputs 1 (image_shape) and 2 (block_shape) must have the same non-zero length, got {} and {}",
                image.size(), block.size());
  auto ints = [&](const char *name, size_t n, int64_t fill) {
    auto v = attr<Attributes::Ints>(name, std::vector<int64_t>(n, fill));
    if (v.size() != n) throw error("attribute {} must have {} values, got {}", name, n, v.size());
    return v;
  };
  const auto dil = ints("dilations", nd, 1), str = ints("strides", nd, 1), pads = ints("pads", 2 * nd, 0);
  const Shape &x = inShape(0);
  if (x.size() != 3) throw error("input 0 must be [N, C * prod(block_shape), L], got {}", inInfo(0).shapeString());
  int64_t k = 1, l = 1;
  axes_.clear();
  for (size_t a = 0; a < nd; ++a) {
    if (image[a] <= 0 || block[a] <= 0 || dil[a] <= 0 || str[a] <= 0)
      throw error("image_shape {}, block_shape {}, dilations and strides must be positive", image, block);
    const int64_t span = dil[a] * (block[a] - 1) + 1, padded = image[a] + pads[a] + pads[a + nd];
    const int64_t cols = padded >= span ? (padded - span) / str[a] + 1 : 0;
    axes_.push_back({image[a], block[a], dil[a], str[a], pads[a], cols});
    k *= block[a];
    l *= cols;
  }
  if (x[1] % k != 0 || x[2] != l)
    throw error("input 0 {} must be [N, C * {}, {}] for image_shape {} and block_shape {}", inInfo(0).shapeString(), k,
                l, image, block);
  Shape out{x[0], x[1] / k};
  out.insert(out.end(), image.begin(), image.end());
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

POPART_REGISTER_OP(Col2ImOp, onnxOp("Col2Im", {18}), floatTypes());
} // namespace popart
