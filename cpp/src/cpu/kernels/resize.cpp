// Resize/Upsample. Nearest: one TableGather (source index per output index and
// axis). Linear/cubic: separable passes, one per resized axis (shrinking axes
// first), each y[.., o, ..] = sum_k w_k(o) x[.., i_k(o), ..] with taps built at grow().
// ResizeGrad: the transpose of the same tables/taps, one axis at a time.
#include "ops/resize.hpp"
#include "axis_transpose.hpp"
#include "cast_narrow.hpp"
#include "dispatch.hpp"
#include "table_gather.hpp"
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>

namespace popart::cpu {
namespace {

using RP = ResizeOp::Params;

/// Source coordinate of output index o along an axis of input length n, output length m.
double resizeCoord(const RP &p, int a, double o, int64_t n, int64_t m, bool &outside) {
  const double s = p.scales[a], ow = s * static_cast<double>(n);  // ONNX uses the unrounded length
  const bool single = std::abs(ow - 1.0) < 1e-9;
  outside = false;
  switch (p.coord) {
  case ResizeOp::Coord::HalfPixel: return (o + 0.5) / s - 0.5;
  case ResizeOp::Coord::HalfPixelSymmetric: {
    const double center = static_cast<double>(n) / 2.0;
    return center * (1.0 - static_cast<double>(m) / ow) + (o + 0.5) / s - 0.5;
  }
  case ResizeOp::Coord::PytorchHalfPixel: return single ? -0.5 : (o + 0.5) / s - 0.5;
  case ResizeOp::Coord::AlignCorners: return single ? 0.0 : o * static_cast<double>(n - 1) / (ow - 1.0);
  case ResizeOp::Coord::Asymmetric: return o / s;
  case ResizeOp::Coord::TfHalfPixelForNN: return (o + 0.5) / s;
  case ResizeOp::Coord::TfCropAndResize: {
    const double r0 = p.roiStart[a], r1 = p.roiEnd[a], len = static_cast<double>(n - 1);
    const double x = (single ? (r1 - r0) * len / 2.0 : o * (r1 - r0) * len / (ow - 1.0)) + r0 * len;
    outside = x < 0 || x > len;
    return x;
  }
  }
  return 0.0;
}

int64_t resizeNearestIndex(ResizeOp::Rounding r, double x, int64_t n) {
  const double f = std::floor(x), frac = x - f;
  int64_t i = static_cast<int64_t>(f);
  if (frac > 0) {
    switch (r) {
    case ResizeOp::Rounding::RoundPreferFloor: i += frac > 0.5; break;
    case ResizeOp::Rounding::RoundPreferCeil: i += frac >= 0.5; break;
    case ResizeOp::Rounding::Floor: break;
    case ResizeOp::Rounding::Ceil: i += 1; break;
    }
  }
  return std::clamp<int64_t>(i, 0, n - 1);
}

double resizeCubicWeight(double d, double A) {
  d = std::abs(d);
  if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0.0;
}

/// Interpolation taps of one axis: output o reads idx[o*n + k] with weight w[o*n + k].
struct ResizeAxisTaps {
  int axis = 0;
  int64_t in = 0, out = 0, n = 0;
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<char> outside;  // tf_crop_and_resize: y = extrapolation_value

  ResizeAxisTaps(const RP &p, int a, int64_t inLen, int64_t outLen) : axis(a), in(inLen), out(outLen) {
    const bool cubic = p.mode == ResizeOp::Mode::Cubic;
    const double sc = p.antialias ? std::min(p.scales[a], 1.0) : 1.0, support = cubic ? 2.0 : 1.0;
    const int64_t start = static_cast<int64_t>(std::floor(-support / sc)) + 1;
    n = 2 - 2 * start;
    idx.resize(out * n), w.resize(out * n), outside.resize(out);
    for (int64_t o = 0; o < out; ++o) {
      bool off = false;
      const double x = resizeCoord(p, a, static_cast<double>(o), in, out, off);
      outside[o] = off;
      const double fl = std::floor(x);
      const int64_t base = static_cast<int64_t>(fl) - (x == fl ? 1 : 0);  // ratio in (0, 1]
      const double ratio = x - static_cast<double>(base);
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        const double d = (static_cast<double>(start + k) - ratio) * sc;
        double wk = cubic ? resizeCubicWeight(d, p.cubicA) : std::max(0.0, 1.0 - std::abs(d));
        const int64_t i = base + start + k;
        if (p.excludeOutside && (i < 0 || i >= in)) wk = 0;
        idx[o * n + k] = std::clamp<int64_t>(i, 0, in - 1);
        w[o * n + k] = wk;
        sum += wk;
      }
      if ((p.antialias || p.excludeOutside) && sum != 0)
        for (int64_t k = 0; k < n; ++k) w[o * n + k] /= sum;
    }
  }

  bool isIdentity() const {
    if (in != out) return false;
    for (int64_t o = 0; o < out; ++o) {
      if (outside[o]) return false;
      for (int64_t k = 0; k < n; ++k)
        if (w[o * n + k] != 0 && (w[o * n + k] != 1 || idx[o * n + k] != o)) return false;
    }
    return true;
  }
};

/// A float or double sum rounded (integers: half to even) and saturated into T.
template <class T, class A> T resizeStore(A v) {
  if constexpr (std::is_integral_v<T>) {
    const A r = std::nearbyint(v);
    if (!(r > static_cast<A>(std::numeric_limits<T>::lowest()))) return std::numeric_limits<T>::lowest();
    if (!(r < static_cast<A>(std::numeric_limits<T>::max()))) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return static_cast<T>(v);
  }
}

/// Linear/cubic resize of a T tensor through separable passes computed in A.
template <class T> class SeparableResize {
public:
  using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, float16_t>, float, double>;

  SeparableResize(const RP &p, Shape in, const Shape &out)
      : shape_(std::move(in)), extrap_(static_cast<A>(p.extrapolation)) {
    std::vector<ResizeAxisTaps> all;
    for (size_t a = 0; a < shape_.size(); ++a) {
      ResizeAxisTaps t(p, static_cast<int>(a), shape_[a], out[a]);
      if (!t.isIdentity()) all.push_back(std::move(t));
    }
    std::stable_sort(all.begin(), all.end(), [](const ResizeAxisTaps &l, const ResizeAxisTaps &r) {
      return static_cast<double>(l.out) / l.in < static_cast<double>(r.out) / r.in;  // shrink first
    });
    passes_ = std::move(all);
    Shape s = shape_;
    int64_t biggest = 0;
    for (size_t k = 0; k + 1 < passes_.size(); ++k) {
      s[passes_[k].axis] = passes_[k].out;
      biggest = std::max(biggest, shapeutil::product(s, 0, s.size()));
    }
    bufA_.resize(biggest), bufB_.resize(biggest);
    if (!std::is_same_v<T, A>) {
      inA_.resize(shapeutil::product(shape_, 0, shape_.size()));
      outA_.resize(shapeutil::product(out, 0, out.size()));
    }
  }

  void run(const T *x, T *y) const {
    if (passes_.empty()) {
      std::copy(x, x + shapeutil::product(shape_, 0, shape_.size()), y);
      return;
    }
    const A *src = reinterpret_cast<const A *>(x);
    if constexpr (!std::is_same_v<T, A>) {
      for (size_t i = 0; i < inA_.size(); ++i) inA_[i] = static_cast<A>(x[i]);
      src = inA_.data();
    }
    Shape s = shape_;
    for (size_t k = 0; k < passes_.size(); ++k) {
      const bool last = k + 1 == passes_.size();
      A *dst = last ? (std::is_same_v<T, A> ? reinterpret_cast<A *>(y) : outA_.data()) : (k % 2 ? bufB_ : bufA_).data();
      pass(passes_[k], s, src, dst);
      s[passes_[k].axis] = passes_[k].out;
      src = dst;
    }
    if constexpr (!std::is_same_v<T, A>)
      for (size_t i = 0; i < outA_.size(); ++i) y[i] = resizeStore<T>(outA_[i]);
  }

private:
  void pass(const ResizeAxisTaps &t, const Shape &s, const A *x, A *y) const {
    const int64_t outer = shapeutil::product(s, 0, t.axis), inner = shapeutil::product(s, t.axis + 1, s.size());
    popx::Opx::parallelFor(outer * t.out, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r % t.out;
        const A *xo = x + (r / t.out) * t.in * inner;
        A *yr = y + r * inner;
        if (t.outside[o]) {
          std::fill(yr, yr + inner, extrap_);
          continue;
        }
        const int64_t *idx = &t.idx[o * t.n];
        const double *w = &t.w[o * t.n];
        if (inner == 1) {
          A acc = 0;
          for (int64_t k = 0; k < t.n; ++k) acc += static_cast<A>(w[k]) * xo[idx[k]];
          yr[0] = acc;
          continue;
        }
        std::fill(yr, yr + inner, A(0));
        for (int64_t k = 0; k < t.n; ++k) {
          if (w[k] == 0) continue;
          const A wk = static_cast<A>(w[k]);
          const A *xs = xo + idx[k] * inner;
          for (int64_t j = 0; j < inner; ++j) yr[j] += wk * xs[j];
        }
      }
    }, std::max<int64_t>(1, 2048 / std::max<int64_t>(1, inner * t.n)));
  }

  Shape shape_;
  A extrap_;
  std::vector<ResizeAxisTaps> passes_;
  mutable std::vector<A> bufA_, bufB_, inA_, outA_;  // scratch, allocated once
};

std::vector<std::vector<int64_t>> resizeNearestTables(const RP &p, const Shape &in, const Shape &out) {
  std::vector<std::vector<int64_t>> tables;
  for (size_t a = 0; a < in.size(); ++a) {
    std::vector<int64_t> t(out[a]);
    for (int64_t o = 0; o < out[a]; ++o) {
      bool off = false;
      const double x = resizeCoord(p, static_cast<int>(a), static_cast<double>(o), in[a], out[a], off);
      t[o] = off ? -1 : resizeNearestIndex(p.rounding, x, in[a]);
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

class ResizeOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const RP &p = getOp<ResizeOp>().params();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    if (x.nelms() == 0) throw error("cannot resize an empty tensor to a non-empty one");
    if (p.mode == ResizeOp::Mode::Nearest) {
      auto plan = std::make_shared<const TableGather>(x.shape(), resizeNearestTables(p, x.shape(), y.shape()));
      const uint64_t bits = fillBits(x.dtype(), p.extrapolation);
      dispatchBytes(dataTypeSize(x.dtype()), [&](auto tag) {
        using U = decltype(tag);
        U fill;
        std::memcpy(&fill, &bits, sizeof(U));
        prog.add([plan, x, y, fill] { plan->run(static_cast<const U *>(x.raw()), static_cast<U *>(y.raw()), fill); });
      });
      return;
    }
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto plan = std::make_shared<const SeparableResize<T>>(p, x.shape(), y.shape());
      prog.add([plan, x, y] { plan->run(x.data<T>(), y.data<T>()); });
    });
  }
};

/// dx = the transposed interpolation of dy: nearest tables, or linear/cubic
/// taps without the extrapolated outputs.
class ResizeGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const RP &p = getOp<ResizeGradOp>().params();
    const Shape &x = outShape(0), &y = inShape(0);
    if (outInfo(0).nelms() == 0) return;
    std::vector<AxisTranspose> axes;
    if (p.mode == ResizeOp::Mode::Nearest) {
      auto tables = resizeNearestTables(p, x, y);
      for (size_t a = 0; a < x.size(); ++a) axes.emplace_back(static_cast<int>(a), x[a], y[a], 1, tables[a]);
    } else {
      for (size_t a = 0; a < x.size(); ++a) {
        ResizeAxisTaps t(p, static_cast<int>(a), x[a], y[a]);
        for (int64_t o = 0; o < t.out; ++o)
          if (t.outside[o]) std::fill(t.idx.begin() + o * t.n, t.idx.begin() + (o + 1) * t.n, int64_t(-1));
        axes.emplace_back(static_cast<int>(a), x[a], y[a], t.n, t.idx, t.w);
      }
    }
    growAxisTranspose(*this, prog, std::move(axes));
  }
};

} // namespace
static popx::OpxCreator<ResizeGradOpx> POPART_UNIQUE_NAME(resizeGradOpxCreator_)(internalOp("ResizeGrad"));
static popx::OpxCreator<ResizeOpx> POPART_UNIQUE_NAME(resizeOpxCreator_)(
    std::vector<OperatorIdentifier>{onnxOp("Resize"), onnxOp("Upsample")});
} // namespace popart::cpu
