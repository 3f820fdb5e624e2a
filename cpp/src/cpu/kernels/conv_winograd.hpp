// Winograd F(2x2, 3x3) convolution for inference (Lavin and Gray's minimal
// filtering): a 3x3 convolution with stride 1, no dilation and one group on
// activations in 16-channel blocks (oneDNN's nChw16c), computed per 4x4 input
// tile as Y = A^T [(G g G^T) . (B^T d B)] A. The 16 element-wise products of a
// tile become 16 small matrix products over the channels, with 2.25 times
// fewer multiply-adds than the direct convolution. The weights are transformed
// (U = G g G^T, [16][C][M]) when the host writes them; U holds 16/9 times the
// weights' bytes, so the kernel is used for up to 256 channels (where it pays
// most and costs least memory). AVX-512 only.
#pragma once
#include <cstdint>
#include <vector>

namespace popart::cpu::winograd {

struct Geometry {
  int64_t n, c, m;        // images, input and output channels (multiples of 16)
  int64_t h, w, oh, ow;   // input and output height and width
  int64_t padTop, padLeft;
};

/// Whether the kernel runs on this machine (AVX-512) and POPART_WINOGRAD is not "0".
bool available();

class Conv3x3 {
public:
  explicit Conv3x3(const Geometry &g);
  /// U from the weights w [M][C][3][3] (row-major floats, read again by the direct fallback until the next call).
  void setWeights(const float *w);
  /// y = relu?((conv(x, w) + b) * s + t + z): x, z, y in nChw16c; b, s, t per output channel; any of b, s, t, z
  /// may be null (s and t come together). relu keeps NaN and gives +0 for negatives. The transforms subtract
  /// input values, which turns an infinity into NaN and spreads a NaN over its tile: with a non-finite input or
  /// weight the convolution is recomputed directly (as numpy would sum it).
  void run(const float *x, const float *b, const float *s, const float *t, const float *z, float *y,
           bool relu) const;

private:
  Geometry g_;
  int64_t tilesH_, tilesW_;
  std::vector<float> u_;  // [16][C][M]
  const float *w_ = nullptr;
  bool finiteWeights_ = true;
};

} // namespace popart::cpu::winograd
