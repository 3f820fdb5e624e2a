// MaxPool / AveragePool: oneDNN pooling for FLOAT/FLOAT16 (FLOAT16 staged in float), plain loops for other
// types, for MaxPool's Indices output, for count_include_pad windows stretched by ceil_mode and for LpPool
// ((sum |x|^p)^(1/p), p = 1 and 2 without pow). The forward
// reads and may leave FLOAT activations in oneDNN layouts shared with convolutions (cpu/dnnl/tensor_layout.hpp).
// Y = max (or sum / count) of x[o * s - padBegin + t * d] over taps t; GlobalAverage/MaxPool: over all of x[n, c].
// Gradients (inputs dY, X): oneDNN pooling backward; max pooling first reruns a training-mode forward into a
// per-thread workspace (the argmax record); the loops route dY to the window's first maximum, spread dY / count
// or give LpPool taps dy sign(x) (|x| / y)^(p-1). Max keeps NaN as numpy's max does (the first NaN is the argmax);
// oneDNN drops it, so its output (and MaxPool's gradient) is recomputed by the loop when the input holds a NaN.
#include "dispatch.hpp"
#include "relu.hpp"
#include "ops/conv_attributes.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include "popart/popx/opx.hpp"
#include "window_util.hpp"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/primitive_step.hpp"
#include "cpu/dnnl/tensor_layout.hpp"
#include "popart/tensor.hpp"
#endif

namespace popart::cpu {
namespace {

enum class PoolKind { Max, Average, Lp };

struct PoolShape {
  int64_t planes;  // N * C
  PoolKind kind;
  bool countPad, columnMajor;
  bool relu;  // MaxPool with a Relu before it folded in (pattern MaxPoolReluFusion): relu(max) = max(relu)
  double p;  // LpPool's exponent
  WindowGeometry g;
  bool isMax() const { return kind == PoolKind::Max; }
};

/// `x`: the shape of the pooled input; the op is a pool or its gradient.
PoolShape poolShape(const popx::Opx &opx, const Shape &x) {
  const Op &op = *opx.op_p;
  auto g = windowGeometry(op, Shape(x.begin() + 2, x.end()), op.attr<Attributes::Ints>("kernel_shape"),
                          op.attr<Attributes::Int>("ceil_mode", 0) != 0);
  const std::string &t = op.opid.type;
  const PoolKind kind = t.rfind("MaxPool", 0) == 0 ? PoolKind::Max
                        : t.rfind("LpPool", 0) == 0 ? PoolKind::Lp
                                                    : PoolKind::Average;
  return {x[0] * x[1], kind, op.attr<Attributes::Int>("count_include_pad", 0) != 0,
          op.attr<Attributes::Int>("storage_order", 0) != 0, kind == PoolKind::Max && op.attr<Attributes::Int>("__relu", 0) != 0,
          kind == PoolKind::Lp ? lpPoolExponent(op) : 1.0, g};
}

/// |v|^p, exact for p = 1 and 2.
template <class Acc> Acc poolLpPow(Acc v, double p) {
  const Acc a = v < Acc(0) ? -v : v;
  if (p == 1.0) return a;
  if (p == 2.0) return a * a;
  return static_cast<Acc>(std::pow(a, static_cast<Acc>(p)));
}

/// Flat index of input position p within its plane, row- or column-major (MaxPool's storage_order).
int64_t poolPlaneIndex(const Window3 &w, const int64_t p[3], bool columnMajor) {
  if (!columnMajor) return (p[0] * w.in[1] + p[1]) * w.in[2] + p[2];
  return (p[2] * w.in[1] + p[1]) * w.in[0] + p[0];
}

template <class T> struct PoolLoop {
  using Acc = compute_t<T>;
  const PoolShape &ps;
  Window3 w;

  /// The output element at output position o of one plane x: y, and the argmax for MaxPool. Only the taps
  /// inside the input are visited; `count` is the number of taps averaged (those in the explicit padding too
  /// with count_include_pad, not the extension ceil_mode adds).
  void element(const T *x, const int64_t o[3], T &y, int64_t *index, int64_t *counted = nullptr) const {
    Acc best = std::numeric_limits<Acc>::lowest(), sum = 0;
    int64_t arg = 0, lo[3], hi[3], count = 1;
    bool first = true;
    for (int i = 0; i < 3; ++i) {
      w.taps(i, o[i], 0, w.in[i], lo[i], hi[i]);
      int64_t f = lo[i], l = hi[i];
      if (ps.countPad) w.taps(i, o[i], -w.pb[i], w.in[i] + w.pe[i], f, l);
      count *= l - f;
    }
    int64_t p[3];
    for (int64_t a = lo[0]; a < hi[0]; ++a)
      for (int64_t b = lo[1]; b < hi[1]; ++b)
        for (int64_t c = lo[2]; c < hi[2]; ++c) {
          p[0] = w.pos(0, o[0], a), p[1] = w.pos(1, o[1], b), p[2] = w.pos(2, o[2], c);
          Acc v = x[(p[0] * w.in[1] + p[1]) * w.in[2] + p[2]];
          sum += ps.kind == PoolKind::Lp ? poolLpPow(v, ps.p) : v;
          // numpy's max and argmax: the first NaN, else the first maximum.
          if (first || v > best || (v != v && best == best)) best = v, arg = poolPlaneIndex(w, p, ps.columnMajor);
          first = false;
        }
    if (ps.isMax()) y = static_cast<T>(best);
    else if (ps.kind == PoolKind::Lp) y = static_cast<T>(lpRoot(sum));
    else y = static_cast<T>(sum / static_cast<Acc>(std::max<int64_t>(count, 1)));
    if (index) *index = arg;
    if (counted) *counted = std::max<int64_t>(count, 1);
  }
  Acc lpRoot(Acc sum) const {
    if (ps.p == 1.0) return sum;
    if (ps.p == 2.0) return std::sqrt(sum);
    return static_cast<Acc>(std::pow(sum, static_cast<Acc>(1.0 / ps.p)));
  }
  /// dy sign(x) (|x| / y)^(p-1): LpPool's derivative at a tap holding x of a window whose output is y.
  Acc lpSlope(Acc g, Acc x, Acc y) const {
    if (y == Acc(0) || x == Acc(0)) return Acc(0);
    const Acc r = poolLpPow(x / y, ps.p - 1.0);
    return x < Acc(0) ? -g * r : g * r;
  }
  void run(const T *x, T *y, int64_t *indices) const {
    int64_t inSize = w.inSize(), outSize = w.outSize();
    popx::Opx::parallelFor(ps.planes, [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl)
        for (int64_t f = 0; f < outSize; ++f) {
          int64_t o[3] = {f / (w.out[1] * w.out[2]), (f / w.out[2]) % w.out[1], f % w.out[2]};
          int64_t *idx = indices ? indices + pl * outSize + f : nullptr;
          element(x + pl * inSize, o, y[pl * outSize + f], idx);
          if (idx) *idx += pl * inSize;
        }
    }, 1);
  }
  /// dx from dy: the window's maximum (row-major argmax: build with columnMajor false) or dy / count per tap.
  void backward(const T *x, const T *dy, T *dx) const {
    int64_t inSize = w.inSize(), outSize = w.outSize();
    popx::Opx::parallelFor(ps.planes, [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const T *xp = x + pl * inSize;
        T *dxp = dx + pl * inSize;
        std::fill(dxp, dxp + inSize, T(0));
        for (int64_t f = 0; f < outSize; ++f) {
          int64_t o[3] = {f / (w.out[1] * w.out[2]), (f / w.out[2]) % w.out[1], f % w.out[2]}, arg, count;
          T y;
          element(xp, o, y, &arg, &count);
          Acc g = dy[pl * outSize + f];
          if (ps.isMax()) {
            dxp[arg] = static_cast<T>(Acc(dxp[arg]) + g);
            continue;
          }
          const bool lp = ps.kind == PoolKind::Lp;
          if (!lp) g /= static_cast<Acc>(count);
          int64_t lo[3], hi[3];
          for (int i = 0; i < 3; ++i) w.taps(i, o[i], 0, w.in[i], lo[i], hi[i]);
          for (int64_t a = lo[0]; a < hi[0]; ++a)
            for (int64_t bb = lo[1]; bb < hi[1]; ++bb)
              for (int64_t c = lo[2]; c < hi[2]; ++c) {
                int64_t p0 = w.pos(0, o[0], a), p1 = w.pos(1, o[1], bb), p2 = w.pos(2, o[2], c);
                const int64_t at = (p0 * w.in[1] + p1) * w.in[2] + p2;
                T &d = dxp[at];
                d = static_cast<T>(Acc(d) + (lp ? lpSlope(g, Acc(xp[at]), Acc(y)) : g));
              }
        }
      }
    }, 1);
  }
};

#ifdef POPART_WITH_DNNL
/// oneDNN's pooling parameters for ps; `ok` is false when oneDNN would count the ceil_mode extension too,
/// or when the kernel is much larger than the input.
struct PoolDnnl {
  dnnl::memory::dims k, s, dil, pl, pr;
  dnnl::algorithm algo;
  bool ok = true;
  explicit PoolDnnl(const PoolShape &ps) {
    const auto &g = ps.g;
    k.assign(g.kernel.begin(), g.kernel.end());
    s.assign(g.strides.begin(), g.strides.end());
    bool stretched = false, huge = false;
    for (size_t i = 0; i < g.rank(); ++i) {
      dil.push_back(g.dilations[i] - 1);
      pl.push_back(g.padsBegin[i]);
      pr.push_back(std::max(g.padsEnd[i], g.reachedPadEnd(i)));
      stretched = stretched || g.reachedPadEnd(i) > g.padsEnd[i];
      // oneDNN visits every tap; a window mostly made of padding (a huge kernel) goes to the loop,
      // which visits only the taps inside the input.
      huge = huge || g.dilatedKernel(i) > 2 * g.in[i] + 1;
    }
    ok = !(ps.countPad && stretched) && !huge;
    algo = ps.isMax() ? dnnl::algorithm::pooling_max
                    : ps.countPad ? dnnl::algorithm::pooling_avg_include_padding
                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  }
  dnnl::pooling_forward::primitive_desc forward(dnnl::prop_kind kind, const dnnl::memory::desc &x,
                                                const dnnl::memory::desc &y) const {
    return {dnnl_ctx::engine(), kind, algo, x, y, s, k, dil, pl, pr};
  }
};

// The library is built for baseline x86-64: hot loops get AVX-512 and AVX2 clones, picked when it loads.
#if defined(__x86_64__) && defined(__GNUC__)
#define POPART_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define POPART_SIMD_CLONES
#endif

/// True when x[0, n) holds a NaN: one vectorised pass (AVX-512/AVX2 clones chosen at load time; the library
/// is built for baseline x86-64).
POPART_SIMD_CLONES bool spanHasNan(const float *x, int64_t n) {
  int nan = 0;
  for (int64_t j = 0; j < n; ++j) nan |= x[j] != x[j];
  return nan != 0;
}

/// True when x[0, n) holds a NaN (a parallel scan that stops early).
bool anyNan(const float *x, int64_t n) {
  std::atomic<bool> found{false};
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e && !found.load(std::memory_order_relaxed); i += 1 << 14)
      if (spanHasNan(x + i, std::min(e, i + (1 << 14)) - i)) found.store(true, std::memory_order_relaxed);
  }, 1 << 16);
  return found.load();
}

/// oneDNN's max pooling drops NaN, numpy's max keeps it: when the input the primitive read holds a NaN,
/// the output is computed again by the loop, through plain copies for tensors in oneDNN layouts (rare path).
std::function<void()> maxPoolNanFixup(const PoolShape &ps, dnnl::memory src, dnnl::memory y,
                                      const dnnl::memory::desc &plainX, const dnnl::memory::desc &plainY) {
  return [=]() mutable {  // mutable: reorders take their memories by non-const reference
    const auto *xs = static_cast<const float *>(src.get_data_handle());
    if (!anyNan(xs, static_cast<int64_t>(src.get_desc().get_size() / sizeof(float)))) return;
    auto &stream = dnnl_ctx::stream();
    std::vector<float> xbuf, ybuf;
    const float *x = xs;
    if (!(src.get_desc() == plainX)) {
      xbuf.resize(plainX.get_size() / sizeof(float));
      dnnl::memory px(plainX, dnnl_ctx::engine(), xbuf.data());
      dnnl::reorder(src, px).execute(stream, src, px);
      stream.wait();
      x = xbuf.data();
    }
    const bool plainOut = y.get_desc() == plainY;
    if (!plainOut) ybuf.resize(plainY.get_size() / sizeof(float));
    float *out = plainOut ? static_cast<float *>(y.get_data_handle()) : ybuf.data();
    PoolLoop<float>{ps, Window3(ps.g)}.run(x, out, nullptr);
    if (!plainOut) {
      dnnl::memory py(plainY, dnnl_ctx::engine(), ybuf.data());
      dnnl::reorder(py, y).execute(stream, py, y);
      stream.wait();
    }
  };
}

/// 16 floats / 16 ints as one vector (a zmm register in the AVX-512 clone, four xmm in the baseline one).
typedef float Float16Lanes __attribute__((vector_size(64)));
typedef int32_t Int16Lanes __attribute__((vector_size(64)));

/// acc with NaN in the lanes where `seen` is set (all ones), by bit operations: GCC scalarises a vector
/// select here in some builds (3x slower pooling).
inline Float16Lanes withNaN(Float16Lanes acc, Int16Lanes seen) {
  Int16Lanes bits;
  std::memcpy(&bits, &acc, sizeof bits);
  const Int16Lanes quietNaN = Int16Lanes{} + 0x7fc00000;
  bits = (bits & ~seen) | (quietNaN & seen);
  std::memcpy(&acc, &bits, sizeof acc);
  return acc;
}

/// One output row (od, oh) of a max pool over 16 channels stored innermost: input pixel q's 16 lanes
/// (q = (d w.in[1] + h) w.in[2] + w) at x + q inStride, output column ow's at y + ow outStride (both 16 in the
/// blocked layout, the channel count channels last). A tap holding NaN makes the output NaN (numpy's max);
/// with `relu`, max(., 0) follows.
POPART_SIMD_CLONES void maxPoolLanesRow(const float *x, int64_t inStride, float *y, int64_t outStride,
                                        const Window3 &w, int64_t od, int64_t oh, bool relu) {
  int64_t d0, d1, h0, h1;
  w.taps(0, od, 0, w.in[0], d0, d1);
  w.taps(1, oh, 0, w.in[1], h0, h1);
  const float lowest = -std::numeric_limits<float>::infinity();
  for (int64_t ow = 0; ow < w.out[2]; ++ow) {
    int64_t w0, w1;
    w.taps(2, ow, 0, w.in[2], w0, w1);
    Float16Lanes acc = lowest - Float16Lanes{};
    Int16Lanes seen = {};
    for (int64_t td = d0; td < d1; ++td)
      for (int64_t th = h0; th < h1; ++th) {
        const float *row = x + (w.pos(0, od, td) * w.in[1] + w.pos(1, oh, th)) * w.in[2] * inStride;
        for (int64_t tw = w0; tw < w1; ++tw) {
          Float16Lanes v;
          std::memcpy(&v, row + w.pos(2, ow, tw) * inStride, sizeof v);
          acc = v > acc ? v : acc;
          seen |= v != v;
        }
      }
    // -Inf and negatives become +0; acc holds no NaN (a NaN tap sets `seen`), so the taps' max form serves.
    const Float16Lanes zero{};
    if (relu) acc = zero > acc ? zero : acc;
    const Float16Lanes out = withNaN(acc, seen);
    std::memcpy(y + ow * outStride, &out, sizeof out);
  }
}

/// oneDNN's 16-channel blocked layout of `dims` (rank 3 to 5), or an empty descriptor.
dnnl::memory::desc block16Desc(const dnnl::memory::dims &dims) {
  using tag = dnnl::memory::format_tag;
  const tag t = dims.size() == 3 ? tag::nCw16c : dims.size() == 4 ? tag::nChw16c : dims.size() == 5 ? tag::nCdhw16c
                                                                                                     : tag::undef;
  return t == tag::undef ? dnnl::memory::desc() : dnnl::memory::desc(dims, dnnl::memory::data_type::f32, t);
}

/// The channels-last layout of `dims` (rank 3 to 5: nwc, nhwc, ndhwc), or an empty descriptor.
dnnl::memory::desc channelsLastDesc(const dnnl::memory::dims &dims) {
  using tag = dnnl::memory::format_tag;
  const tag t = dims.size() == 3 ? tag::nwc : dims.size() == 4 ? tag::nhwc : dims.size() == 5 ? tag::ndhwc
                                                                                             : tag::undef;
  return t == tag::undef ? dnnl::memory::desc() : dnnl::memory::desc(dims, dnnl::memory::data_type::f32, t);
}

/// Where a max pool's 16-channel lane groups lie: chunk b (image b / perImage, channels c0 = 16 (b % perImage)
/// on) in 16-channel blocks (any C) or channels last (C a multiple of 16).
struct LaneChunks {
  Window3 w;
  int64_t channels, perImage;
  bool channelsLast, relu;
  const float *inBase(const float *x, int64_t b) const {
    return channelsLast ? x + b / perImage * w.inSize() * channels + b % perImage * 16 : x + b * w.inSize() * 16;
  }
  int64_t stride() const { return channelsLast ? channels : 16; }
  /// Output row (od, oh) of chunk b in the input's layout.
  float *outRow(float *y, int64_t b, int64_t row) const {
    return channelsLast ? y + (b / perImage * w.outSize() + row * w.out[2]) * channels + b % perImage * 16
                        : y + (b * w.outSize() + row * w.out[2]) * 16;
  }
};

/// Output rows of at most this many columns are pooled into a plain layout through a stack buffer.
constexpr int64_t kMaxPlainRow = 64;

/// Max pool rows [r0, r1) of `c` (row r: chunk, od, oh) into the input's layout or, with `plain`, the plain
/// (N, C, spatial) layout (each row pooled into a buffer, its lanes written to their channels' planes).
void maxPoolLaneRows(const LaneChunks &c, const float *x, float *y, bool plain, int64_t r0, int64_t r1) {
  const Window3 &w = c.w;
  alignas(64) float buffer[16 * kMaxPlainRow];
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / (w.out[0] * w.out[1]), od = r / w.out[1] % w.out[0], oh = r % w.out[1];
    const int64_t row = od * w.out[1] + oh;
    if (!plain) {
      maxPoolLanesRow(c.inBase(x, b), c.stride(), c.outRow(y, b, row), c.stride(), w, od, oh, c.relu);
      continue;
    }
    maxPoolLanesRow(c.inBase(x, b), c.stride(), buffer, 16, w, od, oh, c.relu);
    const int64_t c0 = b % c.perImage * 16, lanes = std::min<int64_t>(16, c.channels - c0);
    float *out = y + (b / c.perImage * c.channels + c0) * w.outSize() + row * w.out[2];
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t ow = 0; ow < w.out[2]; ++ow) out[l * w.outSize() + ow] = buffer[ow * 16 + l];
  }
}

/// MaxPool of a FLOAT input its producer left in the 16-channel blocked layout or channels last (oneDNN's
/// convolutions pick either), into the same layout when the output may hold it, else into the plain layout (a
/// Flatten or Gemm reads it): one pass that keeps NaN, instead of oneDNN's pooling plus a NaN scan of the whole
/// input (which no longer sits in cache: 7% of the MNIST CNN's time) and, for a plain output, a reorder.
bool growMaxPoolLanes(popx::Sequence &prog, const popx::Opx &opx, const PoolShape &ps) {
  const Tensor &xt = *opx.op_p->inTensor(0), &yt = *opx.op_p->outTensor(0);
  if (!ps.isMax() || opx.inInfo(0).dataType() != DataType::FLOAT) return false;
  const auto inDims = dnnl_ctx::dims(opx.inShape(0)), outDims = dnnl_ctx::dims(opx.outShape(0));
  const auto xd = tensor_layout::layoutOf(xt), blocked = block16Desc(inDims), last = channelsLastDesc(inDims);
  const int64_t channels = opx.inShape(0)[1];
  const bool channelsLast = last && xd == last && channels % 16 == 0;
  if (!channelsLast && !(blocked && xd == blocked)) return false;
  const auto same = channelsLast ? channelsLastDesc(outDims) : block16Desc(outDims);
  const bool plain = !(tensor_layout::storable(yt, same) == same);
  if (plain && opx.outShape(0).back() > kMaxPlainRow) return false;  // oneDNN's pooling and a reorder
  const LaneChunks chunks{Window3(ps.g), channels, (channels + 15) / 16, channelsLast, ps.relu};
  const float *x = opx.getInTensor(0).data<float>();
  float *y = opx.getOutTensor(0).data<float>();
  const int64_t rows = opx.inShape(0)[0] * chunks.perImage * chunks.w.out[0] * chunks.w.out[1];
  prog.add([chunks, x, y, plain, rows] {
    popx::Opx::parallelFor(rows, [&](int64_t r0, int64_t r1) { maxPoolLaneRows(chunks, x, y, plain, r0, r1); }, 4);
  });
  if (!plain) tensor_layout::publish(yt, same);
  logging::opx::debug("{}: NaN-keeping max pool over 16-channel lanes ({} input, {} output)", opx.op_p->debugName(),
                      channelsLast ? "channels-last" : "blocked", plain ? "plain" : "same-layout");
  return true;
}

/// Forward pooling; FLOAT inputs come in the layout their producer left them in (tensor_layout.hpp), and the
/// output keeps the primitive's layout when its readers accept it.
bool growPoolDnnl(popx::Sequence &prog, const popx::Opx &opx, const PoolShape &ps) {
  PoolDnnl p(ps);
  if (!p.ok) return false;
  if (growMaxPoolLanes(prog, opx, ps)) return true;
  const Tensor &xt = *opx.op_p->inTensor(0), &yt = *opx.op_p->outTensor(0);
  auto plainX = dnnl_ctx::plainDesc(opx.inShape(0)), plainY = dnnl_ctx::plainDesc(opx.outShape(0));
  auto xd = tensor_layout::layoutOf(xt);
  auto anyY = dnnl::memory::desc(dnnl_ctx::dims(opx.outShape(0)), dnnl::memory::data_type::f32,
                                 dnnl::memory::format_tag::any);
  dnnl::pooling_forward::primitive_desc pd;
  auto make = [&](const dnnl::memory::desc &x) {
    try {
      pd = p.forward(dnnl::prop_kind::forward_inference, x, anyY);
      return true;
    } catch (const dnnl::error &) {
      return false;
    }
  };
  // A oneDNN layout without a fast kernel (reference implementation) is reordered to plain first.
  bool fast = make(xd) && std::string(pd.impl_info_str()).rfind("ref", 0) != 0;
  if (!fast && !make(plainX)) {
    if (!(xd == plainX)) throw internal_error("{}: oneDNN rejected pooling over a oneDNN layout", opx.op_p->debugName());
    return false;
  }
  auto step = std::make_shared<PrimitiveStep>();
  auto x = step->staging.in(opx, 0), y = step->staging.out(opx, 0);
  auto ymem = dnnl_ctx::wrap(plainY, y.raw());
  if (tensor_layout::storable(yt, pd.dst_desc()) == pd.dst_desc()) ymem = dnnl_ctx::wrap(pd.dst_desc(), y.raw());
  auto src = step->inputAs(dnnl_ctx::wrap(xd, x.raw()), pd.src_desc());
  auto dst = step->outputAs(ymem, pd.dst_desc());
  step->add(dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
  step->finishOutput(dst, ymem);
  if (ps.isMax()) step->epilogue = maxPoolNanFixup(ps, src, ymem, plainX, plainY);
  if (ps.relu) {  // after the NaN fix-up, over the whole buffer (a blocked layout's padding too)
    auto *out = static_cast<float *>(ymem.get_data_handle());
    const auto n = static_cast<int64_t>(ymem.get_desc().get_size() / sizeof(float));
    step->epilogue = [fixup = step->epilogue, out, n] {
      if (fixup) fixup();
      relu(out, out, n);
    };
  }
  tensor_layout::publish(yt, ymem.get_desc());
  addStep(prog, step, opx);
  return true;
}

/// Gradient (inputs dY, X): max pooling reruns the forward in training mode for its workspace.
bool growPoolGradDnnl(popx::Sequence &prog, const popx::Opx &opx, const PoolShape &ps) {
  PoolDnnl p(ps);
  if (!p.ok) return false;
  auto xd = dnnl_ctx::plainDesc(opx.inShape(1)), yd = dnnl_ctx::plainDesc(opx.inShape(0));
  dnnl::pooling_forward::primitive_desc fwd;
  dnnl::pooling_backward::primitive_desc bwd;
  try {
    fwd = p.forward(dnnl::prop_kind::forward_training, xd, yd);
    bwd = {dnnl_ctx::engine(), p.algo, xd, yd, p.s, p.k, p.dil, p.pl, p.pr, fwd};
  } catch (const dnnl::error &) {
    return false;
  }
  auto step = std::make_shared<PrimitiveStep>();
  auto dy = step->staging.in(opx, 0), dx = step->staging.out(opx, 0);
  PrimitiveStep::Args args{{DNNL_ARG_DIFF_DST, dnnl_ctx::wrap(yd, dy.raw())},
                           {DNNL_ARG_DIFF_SRC, dnnl_ctx::wrap(xd, dx.raw())}};
  if (ps.isMax()) {
    auto x = step->staging.in(opx, 1);
    auto ws = step->scratch(fwd.workspace_desc());
    step->add(dnnl::pooling_forward(fwd), {{DNNL_ARG_SRC, dnnl_ctx::wrap(xd, x.raw())},
                                           {DNNL_ARG_DST, step->scratch(yd)}, {DNNL_ARG_WORKSPACE, ws}});
    args[DNNL_ARG_WORKSPACE] = ws;
    // oneDNN's argmax skips NaN: with a NaN in x the loop routes dY again, to each window's first NaN.
    const float *xs = x.data<float>(), *dys = dy.data<float>();
    float *dxs = dx.data<float>();
    const int64_t n = opx.inInfo(1).nelms();
    step->epilogue = [ps, xs, dys, dxs, n] {
      if (anyNan(xs, n)) PoolLoop<float>{ps, Window3(ps.g)}.backward(xs, dys, dxs);
    };
  }
  step->add(dnnl::pooling_backward(bwd), std::move(args));
  addStep(prog, step, opx);
  return true;
}
#endif

class PoolOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto ps = poolShape(*this, inShape(0));
    auto type = inInfo(0).dataType();
    bool indices = hasOutput(1);
#ifdef POPART_WITH_DNNL
    tensor_layout::publish(*op_p->outTensor(0), {});  // plain unless growPoolDnnl keeps a oneDNN layout
    if (dnnl_ctx::usesDnnl(type) && !indices && ps.kind != PoolKind::Lp && outInfo(0).nelms() > 0 &&
        growPoolDnnl(prog, *this, ps))
      return;
#endif
    const void *x = getInTensor(0).raw();
    void *y = getOutTensor(0).raw();
    int64_t *idx = indices ? getOutTensor(1).data<int64_t>() : nullptr;
    const int64_t n = outInfo(0).nelms();
    prog.add([=] {
      dispatchNumeric(type, [&](auto tag) {
        using T = decltype(tag);
        PoolLoop<T>{ps, Window3(ps.g)}.run(static_cast<const T *>(x), static_cast<T *>(y), idx);
        if (ps.relu) relu(static_cast<T *>(y), static_cast<T *>(y), n);
      });
    });
  }
};

class PoolGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto ps = poolShape(*this, inShape(1));
    ps.columnMajor = false;
    auto type = inInfo(0).dataType();
#ifdef POPART_WITH_DNNL
    bool empty = outInfo(0).nelms() == 0 || inInfo(0).nelms() == 0;
    if (dnnl_ctx::usesDnnl(type) && !empty && ps.kind != PoolKind::Lp && growPoolGradDnnl(prog, *this, ps))
      return;
#endif
    const void *dy = getInTensor(0).raw(), *x = getInTensor(1).raw();
    void *dx = getOutTensor(0).raw();
    prog.add([=] {
      dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        PoolLoop<T>{ps, Window3(ps.g)}.backward(static_cast<const T *>(x), static_cast<const T *>(dy),
                                                static_cast<T *>(dx));
      });
    });
  }
};

/// MaxUnpool: y = 0, then y[idx[j]] = x[j] in order (a later duplicate index wins, so the scatter is serial).
class MaxUnpoolOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), y = getOutTensor(0);
    const int64_t *idx = getInTensor(1).data<int64_t>();
    const int64_t n = x.nelms(), size = y.nelms(), bytes = y.nbytes();
    prog.add([=] {
      std::memset(y.raw(), 0, static_cast<size_t>(bytes));
      dispatchFloat(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T *px = x.data<T>();
        T *py = y.data<T>();
        for (int64_t j = 0; j < n; ++j) {
          if (idx[j] < 0 || idx[j] >= size)
            throw error("index I[{}] = {} is out of range for an output of {} elements", j, idx[j], size);
          py[idx[j]] = px[j];
        }
      });
    });
  }
};

template <class T> void globalPool(const T *x, T *y, int64_t planes, int64_t size, bool isMax) {
  using Acc = compute_t<T>;
  popx::Opx::parallelFor(planes, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T *xp = x + p * size;
      Acc r = isMax ? std::numeric_limits<Acc>::lowest() : Acc(0);
      for (int64_t i = 0; i < size; ++i) {
        const Acc v = xp[i];
        r = !isMax ? r + v : (v > r || v != v) ? v : r;  // max keeps a NaN, as numpy's does
      }
      y[p] = static_cast<T>(isMax ? r : r / static_cast<Acc>(size));
    }
  }, 16);
}

/// dx = dy / size everywhere (average), or dy at the plane's first maximum and 0 elsewhere (max).
template <class T> void globalPoolGrad(const T *dy, const T *x, T *dx, int64_t planes, int64_t size, bool isMax) {
  using Acc = compute_t<T>;
  popx::Opx::parallelFor(planes, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T *xp = x + p * size;
      T *dxp = dx + p * size;
      if (!isMax) {
        T g = static_cast<T>(Acc(dy[p]) / static_cast<Acc>(size));
        std::fill(dxp, dxp + size, g);
        continue;
      }
      std::fill(dxp, dxp + size, T(0));
      if (size == 0) continue;
      int64_t arg = 0;  // numpy's argmax: the first NaN, else the first maximum
      for (int64_t i = 1; i < size && Acc(xp[arg]) == Acc(xp[arg]); ++i)
        if (Acc(xp[i]) > Acc(xp[arg]) || xp[i] != xp[i]) arg = i;
      dxp[arg] = dy[p];
    }
  }, 16);
}

class GlobalPoolOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &xs = inShape(0);
    int64_t planes = xs[0] * xs[1], size = inInfo(0).nelms() / std::max<int64_t>(planes, 1);
    const auto &type = op_p->opid.type;
    bool isMax = type == "GlobalMaxPool" || type == "GlobalMaxPoolGrad", isGrad = type.back() == 'd';
    auto dtype = inInfo(0).dataType();
    const void *x = getInTensor(0).raw(), *x1 = isGrad ? getInTensor(1).raw() : nullptr;
    void *y = getOutTensor(0).raw();
    if (isGrad) {  // inputs dY, X: the sizes are those of X
      const auto &s = inShape(1);
      planes = s[0] * s[1], size = inInfo(1).nelms() / std::max<int64_t>(planes, 1);
    }
    prog.add([=] {
      dispatchFloat(dtype, [&](auto tag) {
        using T = decltype(tag);
        if (isGrad)
          globalPoolGrad(static_cast<const T *>(x), static_cast<const T *>(x1), static_cast<T *>(y), planes, size,
                         isMax);
        else
          globalPool(static_cast<const T *>(x), static_cast<T *>(y), planes, size, isMax);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<PoolOpx> poolOpxCreator({onnxOp("MaxPool"), onnxOp("AveragePool"), onnxOp("LpPool")});
static popx::OpxCreator<PoolGradOpx> poolGradOpxCreator({internalOp("MaxPoolGrad"), internalOp("AveragePoolGrad"),
                                                         internalOp("LpPoolGrad")});
static popx::OpxCreator<MaxUnpoolOpx> maxUnpoolOpxCreator(onnxOp("MaxUnpool"));
static popx::OpxCreator<GlobalPoolOpx> globalPoolOpxCreator({onnxOp("GlobalAveragePool"), onnxOp("GlobalMaxPool"),
                                                             internalOp("GlobalAveragePoolGrad"),
                                                             internalOp("GlobalMaxPoolGrad")});
} // namespace popart::cpu
