// Transposed separable gathers: one pass per non-identity axis, computed in float
// (double for float64) through two ping-pong scratch buffers; float16 is staged
// through float on the way in and out. A pass writes row i of its axis as the
// weighted sum of the dy rows listed for i, in column blocks when rows are few.
#include "axis_transpose.hpp"
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

namespace popart::cpu {

AxisTranspose::AxisTranspose(int a, int64_t toLen, int64_t fromLen, int64_t taps, const std::vector<int64_t> &idx,
                             const std::vector<double> &weights)
    : axis(a), to(toLen), from(fromLen), start(static_cast<size_t>(toLen) + 1, 0) {
  const int64_t n = from * taps;
  auto used = [&](int64_t e) { return idx[e] >= 0 && (weights.empty() || weights[e] != 0); };
  for (int64_t e = 0; e < n; ++e)
    if (used(e)) ++start[idx[e] + 1];
  for (int64_t i = 0; i < to; ++i) start[i + 1] += start[i];
  src.resize(start[to]);
  w.resize(start[to]);
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t e = 0; e < n; ++e) {
    if (!used(e)) continue;
    const int64_t k = next[idx[e]]++;
    src[k] = e / taps;
    w[k] = weights.empty() ? 1.0 : weights[e];
    unit = unit && w[k] == 1.0;
  }
}

bool AxisTranspose::isIdentity() const {
  if (to != from || !unit) return false;
  for (int64_t i = 0; i < to; ++i)
    if (start[i + 1] - start[i] != 1 || src[start[i]] != i) return false;
  return true;
}

namespace {

template <class T> class AxisTransposePlan {
public:
  using A = compute_t<T>;

  AxisTransposePlan(const Shape &dyShape, std::vector<AxisTranspose> axes) : shape_(dyShape) {
    for (auto &t : axes)
      if (!t.isIdentity()) passes_.push_back(std::move(t));
    std::stable_sort(passes_.begin(), passes_.end(), [](const AxisTranspose &l, const AxisTranspose &r) {
      return static_cast<double>(l.to) * r.from < static_cast<double>(r.to) * l.from;  // shrink first
    });
    Shape s = shape_;
    for (size_t k = 0; k + 1 < passes_.size(); ++k) {
      s[passes_[k].axis] = passes_[k].to;
      biggest_ = std::max(biggest_, shapeutil::product(s, 0, s.size()));
    }
    for (const auto &t : passes_) s[t.axis] = t.to;
    dyN_ = shapeutil::product(shape_, 0, shape_.size());
    dxN_ = shapeutil::product(s, 0, s.size());
  }

  int64_t scratchSize() const { return 2 * biggest_ + (std::is_same_v<T, A> ? 0 : dyN_ + dxN_); }

  void run(const T *dy, T *dx, A *scratch) const {
    if (passes_.empty()) {
      std::memcpy(dx, dy, static_cast<size_t>(dxN_) * sizeof(T));
      return;
    }
    A *bufs[2] = {scratch, scratch + biggest_}, *stageIn = scratch + 2 * biggest_, *stageOut = stageIn + dyN_;
    const A *src = reinterpret_cast<const A *>(dy);
    if constexpr (!std::is_same_v<T, A>) {
      convert(dy, stageIn, dyN_);
      src = stageIn;
    }
    Shape s = shape_;
    for (size_t k = 0; k < passes_.size(); ++k) {
      A *dst = k + 1 < passes_.size() ? bufs[k % 2] : std::is_same_v<T, A> ? reinterpret_cast<A *>(dx) : stageOut;
      pass(passes_[k], s, src, dst);
      s[passes_[k].axis] = passes_[k].to;
      src = dst;
    }
    if constexpr (!std::is_same_v<T, A>) convert(stageOut, dx, dxN_);
  }

private:
  template <class S, class D> static void convert(const S *s, D *d, int64_t n) {
    popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = static_cast<D>(s[i]);
    }, 1 << 14);
  }

  /// Row i of t over columns [c0, c1): y[c] = sum_e w_e x[src_e, c].
  static void row(const AxisTranspose &t, int64_t i, const A *x, A *y, int64_t inner, int64_t c0, int64_t c1) {
    const int64_t e0 = t.start[i], e1 = t.start[i + 1];
    std::fill(y + c0, y + c1, A(0));
    for (int64_t e = e0; e < e1; ++e) {
      const A *xs = x + t.src[e] * inner;
      if (t.unit) {
        for (int64_t c = c0; c < c1; ++c) y[c] += xs[c];
      } else {
        const A wk = static_cast<A>(t.w[e]);
        for (int64_t c = c0; c < c1; ++c) y[c] += wk * xs[c];
      }
    }
  }

  void pass(const AxisTranspose &t, const Shape &s, const A *x, A *y) const {
    const int64_t outer = shapeutil::product(s, 0, t.axis), inner = shapeutil::product(s, t.axis + 1, s.size());
    const int64_t rows = outer * t.to;
    const int64_t cols = rows >= 32 ? inner : std::max<int64_t>(64, (inner + 31) / 32);
    const int64_t blocks = (inner + cols - 1) / cols;
    const int64_t perRow = std::max<int64_t>(1, static_cast<int64_t>(t.src.size()) / std::max<int64_t>(1, t.to));
    popx::Opx::parallelFor(rows * blocks, [&](int64_t b, int64_t e) {
      for (int64_t item = b; item < e; ++item) {
        const int64_t r = item / blocks, c0 = item % blocks * cols;
        row(t, r % t.to, x + (r / t.to) * t.from * inner, y + r * inner, inner, c0, std::min(inner, c0 + cols));
      }
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, std::min(inner, cols) * perRow)));
  }

  Shape shape_;
  std::vector<AxisTranspose> passes_;
  int64_t biggest_ = 0, dyN_ = 0, dxN_ = 0;
};

} // namespace

void growAxisTranspose(const popx::Opx &opx, popx::Sequence &prog, std::vector<AxisTranspose> axes) {
  popx::TensorView dy = opx.getInTensor(0), dx = opx.getOutTensor(0);
  if (dx.nelms() == 0) return;
  dispatchFloat(dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using A = compute_t<T>;
    auto plan = std::make_shared<const AxisTransposePlan<T>>(dy.shape(), std::move(axes));
    const DataType at = std::is_same_v<A, double> ? DataType::DOUBLE : DataType::FLOAT;
    popx::TensorView scratch = opx.createTensor(TensorInfo(at, Shape{std::max<int64_t>(1, plan->scratchSize())}));
    prog.add([plan, dy, dx, scratch] { plan->run(dy.data<T>(), dx.data<T>(), scratch.data<A>()); });
  });
}

} // namespace popart::cpu
