// RoiAlign kernel: bins (roi, bin row, bin column) in parallel; for each channel the bin's sampling points
// are walked and interpolated (taps and weights recomputed per channel: a few flops, no scratch memory).
// Coordinates in the compute type (float for float16), as onnxruntime. Batch indices are checked first.
#include "dispatch.hpp"
#include "ops/roi_align.hpp"
#include "popart/error.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cmath>

namespace popart::cpu {
namespace {

struct RoiAlignShape {
  int64_t n, c, h, w, rois, outH, outW, ratio;
  float scale;
  bool isMax, halfPixel;
};

/// One roi's bins: start corner, bin size and sampling grid per axis.
template <class C> struct RoiBins {
  C startH, startW, binH, binW;
  int64_t gridH, gridW;
  template <class T> RoiBins(const T *roi, const RoiAlignShape &s) {
    const C off = s.halfPixel ? C(0.5) : C(0), scale = static_cast<C>(s.scale);
    startW = static_cast<C>(roi[0]) * scale - off, startH = static_cast<C>(roi[1]) * scale - off;
    C roiW = static_cast<C>(roi[2]) * scale - off - startW, roiH = static_cast<C>(roi[3]) * scale - off - startH;
    if (!s.halfPixel) roiW = std::max(roiW, C(1)), roiH = std::max(roiH, C(1));  // malformed rois become 1x1
    binH = roiH / static_cast<C>(s.outH), binW = roiW / static_cast<C>(s.outW);
    gridH = s.ratio > 0 ? s.ratio : static_cast<int64_t>(std::ceil(roiH / static_cast<C>(s.outH)));
    gridW = s.ratio > 0 ? s.ratio : static_cast<int64_t>(std::ceil(roiW / static_cast<C>(s.outW)));
  }
};

/// Bilinear taps of point (y, x) in an h x w plane; all weights 0 outside [-1, h] x [-1, w].
template <class C> struct RoiTaps {
  int64_t pos[4] = {0, 0, 0, 0};
  C weight[4] = {C(0), C(0), C(0), C(0)};
  RoiTaps(C y, C x, int64_t h, int64_t w) {
    if (y < C(-1) || y > static_cast<C>(h) || x < C(-1) || x > static_cast<C>(w)) return;
    y = std::max(y, C(0)), x = std::max(x, C(0));
    int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= h - 1) y0 = y1 = h - 1, y = static_cast<C>(y0);
    if (x0 >= w - 1) x0 = x1 = w - 1, x = static_cast<C>(x0);
    const C ly = y - static_cast<C>(y0), lx = x - static_cast<C>(x0), hy = C(1) - ly, hx = C(1) - lx;
    pos[0] = y0 * w + x0, pos[1] = y0 * w + x1, pos[2] = y1 * w + x0, pos[3] = y1 * w + x1;
    weight[0] = hy * hx, weight[1] = hy * lx, weight[2] = ly * hx, weight[3] = ly * lx;
  }
};

/// Y[roi, :, i, j] from plane base `x` (the roi's image) for every channel.
template <class T>
void roiAlignBin(const T *x, T *y, const RoiBins<compute_t<T>> &b, int64_t i, int64_t j, const RoiAlignShape &s) {
  using C = compute_t<T>;
  const int64_t plane = s.h * s.w, outPlane = s.outH * s.outW;
  const C count = static_cast<C>(std::max<int64_t>(b.gridH * b.gridW, 1));
  for (int64_t c = 0; c < s.c; ++c) {
    const T *xc = x + c * plane;
    C acc = C(0);
    bool first = true;
    for (int64_t iy = 0; iy < b.gridH; ++iy) {
      const C py = b.startH + static_cast<C>(i) * b.binH +
                   (static_cast<C>(iy) + C(0.5)) * b.binH / static_cast<C>(b.gridH);
      for (int64_t ix = 0; ix < b.gridW; ++ix) {
        const C px = b.startW + static_cast<C>(j) * b.binW +
                     (static_cast<C>(ix) + C(0.5)) * b.binW / static_cast<C>(b.gridW);
        const RoiTaps<C> t(py, px, s.h, s.w);
        if (!s.isMax) {
          for (int k = 0; k < 4; ++k) acc += t.weight[k] * static_cast<C>(xc[t.pos[k]]);
          continue;
        }
        C v = t.weight[0] * static_cast<C>(xc[t.pos[0]]);
        for (int k = 1; k < 4; ++k) v = std::max(v, t.weight[k] * static_cast<C>(xc[t.pos[k]]));
        acc = first ? v : std::max(acc, v);
        first = false;
      }
    }
    y[c * outPlane + i * s.outW + j] = static_cast<T>(s.isMax ? acc : acc / count);
  }
}

template <class T> void runRoiAlign(const T *x, const T *rois, const int64_t *batch, T *y, const RoiAlignShape &s) {
  for (int64_t r = 0; r < s.rois; ++r)
    if (batch[r] < 0 || batch[r] >= s.n)
      throw error("batch_indices[{}] = {} is out of range for {} images", r, batch[r], s.n);
  const int64_t bins = s.outH * s.outW;
  popx::Opx::parallelFor(s.rois * bins, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t r = t / bins, i = t % bins / s.outW, j = t % s.outW;
      const RoiBins<compute_t<T>> b(rois + r * 4, s);
      roiAlignBin(x + batch[r] * s.c * s.h * s.w, y + r * s.c * bins, b, i, j, s);
    }
  }, std::max<int64_t>(1, 4096 / std::max<int64_t>(s.c, 1)));
}

class RoiAlignOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<RoiAlignOp>();
    const Shape &xs = inShape(0), &ys = outShape(0);
    const int64_t ratio = op.attr<Attributes::Int>("sampling_ratio", 0);
    const float scale = op.attr<Attributes::Float>("spatial_scale", 1.0f);
    const RoiAlignShape s{xs[0], xs[1], xs[2], xs[3], ys[0], ys[2], ys[3], ratio, scale, op.isMax(), op.halfPixel()};
    auto x = getInTensor(0), rois = getInTensor(1), y = getOutTensor(0);
    const int64_t *batch = getInTensor(2).data<int64_t>();
    if (y.nelms() == 0) return;
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>(), *pr = rois.data<T>();
      T *py = y.data<T>();
      prog.add([=] { runRoiAlign(px, pr, batch, py, s); });
    });
  }
};

} // namespace
static popx::OpxCreator<RoiAlignOpx> roiAlignOpxCreator(onnxOp("RoiAlign"));
} // namespace popart::cpu
