// Reduce* kernels. The input is viewed as kept/reduced dim groups (size-1 dims
// dropped, neighbours of one kind merged): with a reduced innermost dim each
// output folds a stream (16 partial accumulators when contiguous); with a kept
// innermost run of `inner` elements, 256 columns at a time accumulate row-wise.
// LogSumExp subtracts the max first. float16 runs are converted to float (F16C).
#include "dispatch.hpp"
#include "ops/reduce.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include "vmath.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace popart::cpu {
namespace {

struct ReducePlan {
  std::vector<int64_t> keepDims, keepStrides;  // kept dims except the inner run
  std::vector<int64_t> redOffsets;             // input offsets of one output's elements
  int64_t inner = 1, rows = 1, count = 1;
  bool contiguous = false;                     // inner == 1 and the elements are adjacent
};

ReducePlan makeReducePlan(const Shape &shape, const std::vector<int64_t> &axes) {
  struct Dim { int64_t size; bool red; };
  std::vector<Dim> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool red = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    if (shape[d] == 1) continue;
    if (!dims.empty() && dims.back().red == red) dims.back().size *= shape[d];
    else dims.push_back({shape[d], red});
  }
  ReducePlan p;
  if (!dims.empty() && !dims.back().red) {
    p.inner = dims.back().size;
    dims.pop_back();
  }
  std::vector<int64_t> redDims, redStrides;
  int64_t stride = p.inner;
  for (size_t k = dims.size(); k-- > 0;) {
    auto &dimsOut = dims[k].red ? redDims : p.keepDims;
    auto &stridesOut = dims[k].red ? redStrides : p.keepStrides;
    dimsOut.insert(dimsOut.begin(), dims[k].size);
    stridesOut.insert(stridesOut.begin(), stride);
    stride *= dims[k].size;
  }
  for (auto d : p.keepDims) p.rows *= d;
  for (auto d : redDims) p.count *= d;
  p.contiguous = p.inner == 1 && redDims.size() == 1;
  if (!p.contiguous) {  // enumerate the reduced offsets once
    p.redOffsets.assign(1, 0);
    for (size_t k = 0; k < redDims.size(); ++k) {
      std::vector<int64_t> next;
      next.reserve(p.redOffsets.size() * redDims[k]);
      for (auto base : p.redOffsets)
        for (int64_t i = 0; i < redDims[k]; ++i) next.push_back(base + i * redStrides[k]);
      p.redOffsets.swap(next);
    }
  }
  return p;
}

int64_t rowOffset(const ReducePlan &p, int64_t r) {
  int64_t off = 0;
  for (size_t k = p.keepDims.size(); k-- > 0;) {
    off += (r % p.keepDims[k]) * p.keepStrides[k];
    r /= p.keepDims[k];
  }
  return off;
}

template <class A> A reduceExp(A v) {
  if constexpr (std::is_same_v<A, float>) return vmath::exp(v);
  else return std::exp(v);
}

// Reducers: init, step(acc, x), combine(partial, partial), fin(acc, count, shift).
struct SumR {
  template <class A> static A init() { return A(0); }
  template <class A> static A step(A acc, A v) { return acc + v; }
  template <class A> static A combine(A a, A b) { return a + b; }
  template <class A> static A fin(A acc, int64_t, A) { return acc; }
};
struct MeanR : SumR {
  template <class A> static A fin(A acc, int64_t n, A) {
    if constexpr (std::is_integral_v<A>) return n ? A(acc / A(n)) : A(0);
    else return acc / A(n);
  }
};
struct ProdR : SumR {
  template <class A> static A init() { return A(1); }
  template <class A> static A step(A acc, A v) { return acc * v; }
  template <class A> static A combine(A a, A b) { return a * b; }
};
struct MaxR : SumR {
  template <class A> static A init() {
    if constexpr (std::numeric_limits<A>::has_infinity) return -std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::lowest();
  }
  template <class A> static A step(A acc, A v) { return v > acc || v != v ? v : acc; }  // NaN wins, as numpy
  template <class A> static A combine(A a, A b) { return step(a, b); }
};
struct MinR : SumR {
  template <class A> static A init() {
    if constexpr (std::numeric_limits<A>::has_infinity) return std::numeric_limits<A>::infinity();
    else return std::numeric_limits<A>::max();
  }
  template <class A> static A step(A acc, A v) { return v < acc || v != v ? v : acc; }  // NaN wins, as numpy
  template <class A> static A combine(A a, A b) { return step(a, b); }
};
struct L1R : SumR {
  template <class A> static A step(A acc, A v) { return acc + (v < A(0) ? A(-v) : v); }
};
struct SumSquareR : SumR {
  template <class A> static A step(A acc, A v) { return acc + v * v; }
};
struct L2R : SumSquareR {
  template <class A> static A fin(A acc, int64_t, A) { return A(std::sqrt(double(acc))); }
};
struct LogSumR : SumR {
  template <class A> static A fin(A acc, int64_t, A) { return A(std::log(double(acc))); }
};
struct LogSumExpR : SumR {  // x arrives shifted by the max
  template <class A> static A step(A acc, A v) { return acc + reduceExp(v); }
  template <class A> static A fin(A acc, int64_t, A shift) { return A(std::log(acc)) + shift; }
};

template <class T, class R>
using Acc = std::conditional_t<std::is_same_v<R, LogSumExpR> && std::is_integral_v<T>, double, compute_t<T>>;

// The run [x, x + n) readable element-wise: float16 converted into buf (n <= its size).
template <class T> auto readRun(const T *x, int64_t n, float *buf) {
  if constexpr (std::is_same_v<T, float16_t>) {
    halfToFloat(x, buf, n);
    return static_cast<const float *>(buf);
  } else {
    return x;
  }
}

// Folds the `count` elements at x + offsets (or x[0..count) when contiguous).
template <class R, class A, class T>
A foldStream(const ReducePlan &p, const T *x, A shift) {
  if (!p.contiguous) {
    A acc = R::template init<A>();
    for (int64_t off : p.redOffsets) acc = R::step(acc, A(A(x[off]) - shift));
    return acc;
  }
  constexpr bool half = std::is_same_v<T, float16_t>;
  constexpr int kLanes = 16;
  A part[kLanes];
  for (auto &v : part) v = R::template init<A>();
  float buf[half ? kHalfChunk : 1];
  const int64_t chunk = half ? kHalfChunk : std::max<int64_t>(p.count, 1);
  for (int64_t s = 0; s < p.count; s += chunk) {
    const int64_t m = std::min(chunk, p.count - s);
    const auto *v = readRun(x + s, m, buf);
    int64_t i = 0;
    for (; i + kLanes <= m; i += kLanes)
      for (int k = 0; k < kLanes; ++k) part[k] = R::step(part[k], A(A(v[i + k]) - shift));
    for (; i < m; ++i) part[0] = R::step(part[0], A(A(v[i]) - shift));
  }
  for (int k = 1; k < kLanes; ++k) part[0] = R::combine(part[0], part[k]);
  return part[0];
}

constexpr int64_t kReduceCols = 256;

// Columns [0, w) of one output row when the innermost input run is kept.
template <class R, class A, class T> void foldColumns(const ReducePlan &p, const T *x, T *y, int64_t w) {
  constexpr bool twoPass = std::is_same_v<R, LogSumExpR>;
  A acc[kReduceCols], shift[kReduceCols];
  float buf[std::is_same_v<T, float16_t> ? kReduceCols : 1];
  for (int64_t j = 0; j < w; ++j) shift[j] = A(0), acc[j] = MaxR::init<A>();
  if constexpr (twoPass) {
    for (int64_t off : p.redOffsets) {
      const auto *v = readRun(x + off, w, buf);
      for (int64_t j = 0; j < w; ++j) acc[j] = MaxR::step(acc[j], A(v[j]));
    }
    for (int64_t j = 0; j < w; ++j) shift[j] = std::isfinite(double(acc[j])) ? acc[j] : A(0);
  }
  for (int64_t j = 0; j < w; ++j) acc[j] = R::template init<A>();
  for (int64_t off : p.redOffsets) {
    const auto *v = readRun(x + off, w, buf);
    for (int64_t j = 0; j < w; ++j) acc[j] = R::step(acc[j], A(A(v[j]) - shift[j]));
  }
  for (int64_t j = 0; j < w; ++j) y[j] = T(R::fin(acc[j], p.count, shift[j]));
}

template <class R, class T> void reduceTyped(const ReducePlan &p, const T *x, T *y) {
  using A = Acc<T, R>;
  if (p.inner == 1) {
    popx::Opx::parallelFor(p.rows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const T *xr = x + rowOffset(p, r);
        A shift = A(0);
        if constexpr (std::is_same_v<R, LogSumExpR>) {
          A m = foldStream<MaxR, A>(p, xr, A(0));
          shift = std::isfinite(double(m)) ? m : A(0);
        }
        y[r] = T(R::fin(foldStream<R, A>(p, xr, shift), p.count, shift));
      }
    }, std::max<int64_t>(1, 16384 / std::max<int64_t>(p.count, 1)));
    return;
  }
  const int64_t chunks = (p.inner + kReduceCols - 1) / kReduceCols;
  popx::Opx::parallelFor(p.rows * chunks, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t r = t / chunks, j0 = (t % chunks) * kReduceCols;
      foldColumns<R, A>(p, x + rowOffset(p, r) + j0, y + r * p.inner + j0, std::min(kReduceCols, p.inner - j0));
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(p.count * kReduceCols, 1)));
}

template <class R> std::function<void()> reduceStep(DataType t, const ReducePlan &p, const void *x, void *y) {
  auto make = [&](auto tag) -> std::function<void()> {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool> && !std::is_same_v<R, MaxR> && !std::is_same_v<R, MinR>)
      throw error("type BOOL is only supported by ReduceMax and ReduceMin");
    else
      return [p, x, y] { reduceTyped<R>(p, static_cast<const T *>(x), static_cast<T *>(y)); };
  };
  return dispatchAll(t, make);
}

class ReduceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ReduceOp>();
    auto x = getInTensor(0), y = getOutTensor(0);
    if (op.isNoop()) {
      prog.add([x, y] { if (x.raw() != y.raw()) std::memcpy(y.raw(), x.raw(), static_cast<size_t>(x.nbytes())); });
      return;
    }
    ReducePlan p = makeReducePlan(inShape(0), op.axes());
    if (x.nelms() == 0) p.count = 0, p.redOffsets.clear(), p.contiguous = false;
    const std::string &type = op.opid.type;
    const void *px = x.raw();
    void *py = y.raw();
    DataType t = x.dtype();
    std::function<void()> step;
    if (type == "ReduceSum") step = reduceStep<SumR>(t, p, px, py);
    else if (type == "ReduceMean") step = reduceStep<MeanR>(t, p, px, py);
    else if (type == "ReduceMax") step = reduceStep<MaxR>(t, p, px, py);
    else if (type == "ReduceMin") step = reduceStep<MinR>(t, p, px, py);
    else if (type == "ReduceProd") step = reduceStep<ProdR>(t, p, px, py);
    else if (type == "ReduceL1") step = reduceStep<L1R>(t, p, px, py);
    else if (type == "ReduceL2") step = reduceStep<L2R>(t, p, px, py);
    else if (type == "ReduceSumSquare") step = reduceStep<SumSquareR>(t, p, px, py);
    else if (type == "ReduceLogSum") step = reduceStep<LogSumR>(t, p, px, py);
    else if (type == "ReduceLogSumExp") step = reduceStep<LogSumExpR>(t, p, px, py);
    else throw error("no reduction kernel for {}", type);
    prog.add(step);
  }
};

std::vector<OperatorIdentifier> reduceIds() {
  std::vector<OperatorIdentifier> ids;
  for (const char *t : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
    ids.push_back(onnxOp(t));
  return ids;
}

} // namespace
static popx::OpxCreator<ReduceOpx> reduceOpxCreator(reduceIds());
} // namespace popart::cpu
