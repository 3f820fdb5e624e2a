// Conv/pooling window geometry padded to 3 spatial dimensions (leading size-1
// dimensions), for the plain-loop kernels.
#pragma once
#include "ops/conv_attributes.hpp"
#include <algorithm>

namespace popart::cpu {

struct Window3 {
  int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
  explicit Window3(const WindowGeometry &g) {
    size_t lead = 3 - g.rank();
    for (size_t i = 0; i < 3; ++i) {
      bool real = i >= lead;
      size_t j = real ? i - lead : 0;
      in[i] = real ? g.in[j] : 1, out[i] = real ? g.out[j] : 1, k[i] = real ? g.kernel[j] : 1;
      s[i] = real ? g.strides[j] : 1, d[i] = real ? g.dilations[j] : 1;
      pb[i] = real ? g.padsBegin[j] : 0, pe[i] = real ? g.padsEnd[j] : 0;
    }
  }
  int64_t inSize() const { return in[0] * in[1] * in[2]; }
  int64_t outSize() const { return out[0] * out[1] * out[2]; }
  int64_t kernelSize() const { return k[0] * k[1] * k[2]; }
  /// Input coordinate of output o, kernel tap t along dimension i (may be out of range).
  int64_t pos(int i, int64_t o, int64_t t) const { return o * s[i] - pb[i] + t * d[i]; }
  bool inside(int i, int64_t p) const { return p >= 0 && p < in[i]; }
  /// Taps [first, last) of output o along dimension i whose input coordinate lies in [lo, hi): loops over
  /// them only, so a huge kernel (mostly padding) costs what its taps inside the input cost.
  void taps(int i, int64_t o, int64_t lo, int64_t hi, int64_t &first, int64_t &last) const {
    const int64_t base = o * s[i] - pb[i];
    first = lo > base ? (lo - base + d[i] - 1) / d[i] : 0;
    last = hi > base ? std::min(k[i], (hi - 1 - base) / d[i] + 1) : 0;
    if (last < first) last = first;
  }
};

} // namespace popart::cpu
