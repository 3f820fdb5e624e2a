// Conv family, each one convolution y = conv(x, w) (conv_loops.hpp) run in one of three passes:
//   forward  (Conv, MultiConv: one per conv, ConvTransposeDataGrad)   Y from X, W (+ B)
//   data     (ConvDataGrad, ConvTranspose with + B)    dX from dY, W
//   weights  (ConvWeightsGrad, ConvTransposeWeightsGrad) dW from dY, X;   ConvBiasGrad: dB[m] = sum_{n, o} dY[n, m, o];
// ConvFused: forward, then + Z (input 3) and ReLU (attribute relu) as oneDNN sum/eltwise post-ops.
// ConvFlipWeights: W [M, C/G, k...] -> [C, M/G, k...], channels swapped per group, spatial dims flipped.
// oneDNN (FLOAT/FLOAT16 staged in float) builds the primitive once in grow() in the layouts it prefers, with
// reorders from/to the plain buffers at each run, except that Conv/ConvFused activations may arrive in and stay
// in oneDNN layouts (cpu/dnnl/tensor_layout.hpp) and that forward weights only the host writes are reordered
// once per host write (PrimitiveStep::inputCachedAs); plain loops otherwise.
#include "conv_loops.hpp"
#include "conv_winograd.hpp"
#include "popart/cpu/kernel.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>
#include "ops/conv_attributes.hpp"
#ifdef POPART_WITH_DNNL
#include "cpu/devicex.hpp"
#include "cpu/dnnl/primitive_step.hpp"
#include "cpu/dnnl/tensor_layout.hpp"
#include "popart/tensor.hpp"
#endif

namespace popart::cpu {
namespace {

enum class ConvPass { Forward, Data, Weights };

/// Index of the tensor playing x, w and y (the pass's result is an output index, the others inputs).
struct ConvRoles {
  ConvPass pass;
  int x, w, y, bias, conv = 0;  // conv: MultiConv's convolution
  int addend = -1;              // ConvFused: Z added to the forward result
  bool relu = false;            // ConvFused: max(0, .) applied last
  int bn = -1;                  // ConvFused: first of the folded BatchNormalization's scale, B, mean, var
  bool xOut() const { return pass == ConvPass::Data; }
  bool wOut() const { return pass == ConvPass::Weights; }
  bool yOut() const { return pass == ConvPass::Forward; }
};

ConvRoles convRoles(const std::string &type) {
  if (type == "Conv") return {ConvPass::Forward, 0, 1, 0, 2};
  if (type == "ConvFused") return {ConvPass::Forward, 0, 1, 0, 2, 0, 3};
  if (type == "ConvTransposeDataGrad") return {ConvPass::Forward, 0, 1, 0, -1};
  if (type == "ConvDataGrad") return {ConvPass::Data, 0, 1, 0, -1};
  if (type == "ConvTranspose") return {ConvPass::Data, 0, 1, 0, 2};
  if (type == "ConvWeightsGrad") return {ConvPass::Weights, 1, 0, 0, -1};
  return {ConvPass::Weights, 0, 0, 1, -1};  // ConvTransposeWeightsGrad: x = dY, y = X
}

ConvShape convShape(const popx::Opx &opx, const ConvRoles &r) {
  const Op &op = *opx.op_p;
  ConvShape cs{r.xOut() ? opx.outShape(r.x) : opx.inShape(r.x), r.wOut() ? opx.outShape(r.w) : opx.inShape(r.w),
               r.yOut() ? opx.outShape(r.y) : opx.inShape(r.y), 1, {}};
  cs.group = cs.x[1] / cs.w[1];
  Shape kernel(cs.w.begin() + 2, cs.w.end());
  if (op.opid.type == "ConvTranspose")
    cs.g = convTransposeGeometry(op, Shape(cs.y.begin() + 2, cs.y.end()), kernel);
  else if (op.opid.type == "MultiConv")
    cs.g = multiConvGeometry(op, r.conv);
  else
    cs.g = windowGeometry(op, Shape(cs.x.begin() + 2, cs.x.end()), kernel);
  return cs;
}

/// ConvFused without oneDNN: y = relu?(y + z?) over `n` elements (z may be null).
template <class T> void addRelu(T *y, const T *z, bool relu, int64_t n) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      compute_t<T> v = compute_t<T>(y[i]) + (z ? compute_t<T>(z[i]) : 0);
      y[i] = static_cast<T>(relu && v < 0 ? 0 : v);
    }
  }, 4096);
}

/// A folded inference BatchNormalization as per-channel y * s + t, s = scale / sqrt(var + eps),
/// t = B - mean * s: computed at each run from the current parameters (inputs bn .. bn + 3) into float
/// buffers s and t of [M] (oneDNN's post-op operands) and in double for the plain loops.
struct BatchNormFold {
  popx::TensorView scale, bias, mean, var, s, t;
  float eps = 1e-5f;
  int64_t channels = 0;
  mutable std::vector<double> sd, td;

  BatchNormFold(const popx::Opx &opx, int bn, int64_t m) : channels(m) {
    scale = opx.getInTensor(bn), bias = opx.getInTensor(bn + 1), mean = opx.getInTensor(bn + 2), var = opx.getInTensor(bn + 3);
    s = opx.createTensor(TensorInfo(DataType::FLOAT, {m}));
    t = opx.createTensor(TensorInfo(DataType::FLOAT, {m}));
    eps = opx.op_p->attr<Attributes::Float>("epsilon", 1e-5f);
    sd.resize(static_cast<size_t>(m)), td.resize(static_cast<size_t>(m));
  }
  void coefficients() const {
    dispatchFloat(scale.dtype(), [&](auto tag) {
      using T = decltype(tag);
      float *sp = s.data<float>(), *tp = t.data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        double k = double(compute_t<T>(scale.data<T>()[c])) / std::sqrt(double(compute_t<T>(var.data<T>()[c])) + eps);
        sd[c] = k, td[c] = double(compute_t<T>(bias.data<T>()[c])) - double(compute_t<T>(mean.data<T>()[c])) * k;
        sp[c] = static_cast<float>(sd[c]), tp[c] = static_cast<float>(td[c]);
      }
    });
  }
  /// y[n, c, ...] = y * s[c] + t[c] over NCHW-ordered y (`size` elements per channel and image).
  template <class T> void apply(T *y, int64_t images, int64_t size) const {
    popx::Opx::parallelFor(images * channels, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        auto k = static_cast<compute_t<T>>(sd[r % channels]), o = static_cast<compute_t<T>>(td[r % channels]);
        for (T *p = y + r * size, *end = p + size; p < end; ++p) *p = static_cast<T>(compute_t<T>(*p) * k + o);
      }
    }, 1);
  }
};

#ifdef POPART_WITH_DNNL
using dnnl::memory;

memory::desc convAnyDesc(const memory::dims &d) {
  return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
}

/// Descriptors and window parameters of one convolution in oneDNN's terms.
struct ConvDnnl {
  memory::dims x, w, y, strides, dil, pl, pr;
  explicit ConvDnnl(const ConvShape &cs) : x(dnnl_ctx::dims(cs.x)), w(dnnl_ctx::dims(cs.w)), y(dnnl_ctx::dims(cs.y)) {
    const auto &g = cs.g;
    if (cs.group > 1) {  // [G, M/G, C/G, k...]: the same bytes as [M, C/G, k...]
      w[0] = cs.m() / cs.group;
      w.insert(w.begin(), cs.group);
    }
    strides.assign(g.strides.begin(), g.strides.end());
    pl.assign(g.padsBegin.begin(), g.padsBegin.end());
    pr.assign(g.padsEnd.begin(), g.padsEnd.end());
    for (auto d : g.dilations) dil.push_back(d - 1);  // oneDNN counts the gaps
  }
  dnnl::convolution_forward::primitive_desc forward(dnnl::prop_kind kind, bool bias, int64_t m,
                                                    const dnnl::primitive_attr &attr = {}) const {
    auto algo = dnnl::algorithm::convolution_direct;
    if (bias)
      return {dnnl_ctx::engine(), kind, algo, convAnyDesc(x), convAnyDesc(w), dnnl_ctx::plainDesc({m}), convAnyDesc(y),
              strides, dil, pl, pr, attr};
    return {dnnl_ctx::engine(), kind, algo, convAnyDesc(x), convAnyDesc(w), convAnyDesc(y), strides, dil, pl, pr, attr};
  }
  /// ConvTranspose's W [M, C/G, k...] as oneDNN deconvolution weights [G, C/G, M/G, k...] (strided view).
  memory::desc deconvWeights(const ConvShape &cs) const {
    int64_t k = 1, g = cs.group, cg = cs.c() / g, mg = cs.m() / g;
    memory::dims kd(cs.w.begin() + 2, cs.w.end()), ks(kd.size());
    for (size_t i = kd.size(); i-- > 0;) ks[i] = k, k *= kd[i];
    memory::dims d{cg, mg}, s{k, cg * k};
    if (g > 1) d.insert(d.begin(), g), s.insert(s.begin(), mg * cg * k);
    d.insert(d.end(), kd.begin(), kd.end());
    s.insert(s.end(), ks.begin(), ks.end());
    return memory::desc(d, memory::data_type::f32, s);
  }
};

/// Whether the forward convolution runs as Winograd F(2x2, 3x3) (conv_winograd.hpp): 3x3, stride 1, no
/// dilation, one group, 16 to 256 channels in and out in multiples of 16, and weights only the host writes
/// (their transform is made once per host write).
bool winogradFits(const ConvShape &cs, const uint64_t *wCounter) {
  const auto &g = cs.g;
  auto fits = [](int64_t ch) { return ch % 16 == 0 && ch >= 16 && ch <= 256; };
  return wCounter && cs.x.size() == 4 && cs.group == 1 && cs.w[2] == 3 && cs.w[3] == 3 &&
         g.strides == Shape{1, 1} && g.dilations == Shape{1, 1} && fits(cs.c()) && fits(cs.m()) &&
         winograd::available();
}

/// growForward by Winograd F(2x2, 3x3) on 16-channel blocks: x and z reordered into them unless their producer
/// left them so; y left so when tensor `yt` may hold it (then published), else reordered to plain.
void growWinograd(PrimitiveStep &step, const ConvShape &cs, bool relu, memory x, memory w, memory b, memory z,
                  memory y, const Tensor *yt, const uint64_t *wCounter, memory bnScale, memory bnShift) {
  auto blocked = [](const Shape &s) {
    return memory::desc(dnnl_ctx::dims(s), memory::data_type::f32, memory::format_tag::nChw16c);
  };
  const auto yd = blocked(cs.y);
  memory in = step.inputAs(x, blocked(cs.x)), add = z ? step.inputAs(z, yd) : memory();
  if (yt && tensor_layout::storable(*yt, yd) == yd) y = dnnl_ctx::wrap(yd, y.get_data_handle());
  memory out = step.outputAs(y, yd);
  const auto &g = cs.g;
  auto conv = std::make_shared<winograd::Conv3x3>(
      winograd::Geometry{cs.n(), cs.c(), cs.m(), cs.x[2], cs.x[3], cs.y[2], cs.y[3], g.padsBegin[0], g.padsBegin[1]});
  auto seen = std::make_shared<uint64_t>(~uint64_t{0});  // the weights' host writes when U was made
  auto ptr = [](const memory &m) { return m ? static_cast<const float *>(m.get_data_handle()) : nullptr; };
  step.addWork([=] {
    if (*seen != *wCounter) {
      conv->setWeights(ptr(w));
      *seen = *wCounter;
    }
    conv->run(ptr(in), ptr(b), ptr(bnScale), ptr(bnShift), ptr(add), static_cast<float *>(out.get_data_handle()),
              relu);
  });
  step.finishOutput(out, y);
  if (yt) tensor_layout::publish(*yt, y.get_desc());
}

/// Forward convolution y = relu?(conv(x, w) + b + z?) (b, z may be empty): the sum post-op adds what the
/// destination holds, so z is copied (reordered) into it first. y stays in the primitive's layout when
/// tensor `yt` may hold it (then published), else it is reordered to plain.
void growForward(PrimitiveStep &step, const ConvShape &cs, bool relu, memory x, memory w, memory b, memory z,
                 memory y, const Tensor *yt, const uint64_t *wCounter, memory bnScale = {}, memory bnShift = {}) {
  dnnl::post_ops ops;
  if (bnScale) {  // a folded BatchNormalization: * s, + t per channel
    ops.append_binary(dnnl::algorithm::binary_mul, bnScale.get_desc());
    ops.append_binary(dnnl::algorithm::binary_add, bnShift.get_desc());
  }
  if (z) ops.append_sum();
  if (relu) dnnl_ctx::appendRelu(ops);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  auto pd = ConvDnnl(cs).forward(dnnl::prop_kind::forward_inference, bool(b), cs.m(), attr);
  PrimitiveStep::Args args{{DNNL_ARG_SRC, step.inputAs(x, pd.src_desc())},
                           {DNNL_ARG_WEIGHTS, step.inputCachedAs(w, pd.weights_desc(), wCounter)}};
  if (yt && tensor_layout::storable(*yt, pd.dst_desc()) == pd.dst_desc())
    y = dnnl_ctx::wrap(pd.dst_desc(), y.get_data_handle());
  memory out = step.outputAs(y, pd.dst_desc());
  if (z) step.add(dnnl::reorder(z, out), {{DNNL_ARG_FROM, z}, {DNNL_ARG_TO, out}});
  args[DNNL_ARG_DST] = out;
  if (b) args[DNNL_ARG_BIAS] = b;
  if (bnScale) {
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = bnScale;
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = bnShift;
  }
  step.add(dnnl::convolution_forward(pd), std::move(args));
  step.finishOutput(out, y);
  if (yt) tensor_layout::publish(*yt, y.get_desc());
}

/// Appends the backward pass's primitive over plain memories x, w, y; throws dnnl::error.
void growBackward(PrimitiveStep &step, const ConvShape &cs, ConvPass pass, memory x, memory w, memory y) {
  ConvDnnl d(cs);
  auto algo = dnnl::algorithm::convolution_direct;
  auto &eng = dnnl_ctx::engine();
  memory out;
  PrimitiveStep::Args args;
  auto hint = d.forward(dnnl::prop_kind::forward_training, false, cs.m());
  if (pass == ConvPass::Data) {
    dnnl::convolution_backward_data::primitive_desc pd(eng, algo, convAnyDesc(d.x), convAnyDesc(d.w), convAnyDesc(d.y),
                                                       d.strides, d.dil, d.pl, d.pr, hint);
    args = {{DNNL_ARG_DIFF_DST, step.inputAs(y, pd.diff_dst_desc())},
            {DNNL_ARG_WEIGHTS, step.inputAs(w, pd.weights_desc())},
            {DNNL_ARG_DIFF_SRC, out = step.outputAs(x, pd.diff_src_desc())}};
    step.add(dnnl::convolution_backward_data(pd), std::move(args));
    return step.finishOutput(out, x);
  }
  dnnl::convolution_backward_weights::primitive_desc pd(eng, algo, convAnyDesc(d.x), convAnyDesc(d.w), convAnyDesc(d.y),
                                                        d.strides, d.dil, d.pl, d.pr, hint);
  args = {{DNNL_ARG_SRC, step.inputAs(x, pd.src_desc())}, {DNNL_ARG_DIFF_DST, step.inputAs(y, pd.diff_dst_desc())},
          {DNNL_ARG_DIFF_WEIGHTS, out = step.outputAs(w, pd.diff_weights_desc())}};
  step.add(dnnl::convolution_backward_weights(pd), std::move(args));
  step.finishOutput(out, w);
}

/// ConvTranspose: oneDNN deconvolution from y (its input) to x (its output), with optional bias b.
void growDeconv(PrimitiveStep &step, const ConvShape &cs, memory w, memory b, memory y, memory x,
                const uint64_t *wCounter) {
  ConvDnnl d(cs);
  auto wd = d.deconvWeights(cs);
  auto wAny = memory::desc(wd.get_dims(), memory::data_type::f32, memory::format_tag::any);
  auto kind = dnnl::prop_kind::forward_inference;
  auto algo = dnnl::algorithm::deconvolution_direct;
  using Pd = dnnl::deconvolution_forward::primitive_desc;
  auto &eng = dnnl_ctx::engine();
  auto src = convAnyDesc(d.y), dst = convAnyDesc(d.x);
  auto pd = b ? Pd(eng, kind, algo, src, wAny, b.get_desc(), dst, d.strides, d.dil, d.pl, d.pr)
              : Pd(eng, kind, algo, src, wAny, dst, d.strides, d.dil, d.pl, d.pr);
  memory out = step.outputAs(x, pd.dst_desc());
  PrimitiveStep::Args args{{DNNL_ARG_SRC, step.inputAs(y, pd.src_desc())},
                           {DNNL_ARG_WEIGHTS, step.inputAs(dnnl_ctx::wrap(wd, w.get_data_handle()), pd.weights_desc())},
                           {DNNL_ARG_DST, out}};
  if (b) args[DNNL_ARG_BIAS] = b;
  step.add(dnnl::deconvolution_forward(pd), std::move(args));
  step.finishOutput(out, x);
}

bool growConvDnnl(popx::Sequence &prog, const popx::Opx &opx, const ConvShape &cs, const ConvRoles &r) {
  auto step = std::make_shared<PrimitiveStep>();
  auto &st = step->staging;
  auto view = [&](int i, bool isOut) { return (isOut ? st.out(opx, i) : st.in(opx, i)).raw(); };
  auto wDims = ConvDnnl(cs).w;
  Shape wGrouped(wDims.begin(), wDims.end());
  // Conv/ConvFused read X and Z in the layout their producer left them in, and may leave Y in theirs.
  const Op &op = *opx.op_p;
  bool chained = (op.opid.type == "Conv" || op.opid.type == "ConvFused") && op.inInfo(0).dataType() == DataType::FLOAT;
  auto layout = [&](int i, const Shape &s) {
    return chained ? tensor_layout::layoutOf(*op.inTensor(i)) : dnnl_ctx::plainDesc(s);
  };
  auto x = dnnl_ctx::wrap(r.xOut() ? dnnl_ctx::plainDesc(cs.x) : layout(r.x, cs.x), view(r.x, r.xOut()));
  auto w = dnnl_ctx::wrap(dnnl_ctx::plainDesc(wGrouped), view(r.w, r.wOut()));
  auto y = dnnl_ctx::wrap(dnnl_ctx::plainDesc(cs.y), view(r.y, r.yOut()));
  memory b, z;
  if (r.bias >= 0 && opx.hasInput(r.bias)) b = dnnl_ctx::plainMemory({r.xOut() ? cs.c() : cs.m()}, view(r.bias, false));
  if (r.addend >= 0 && opx.hasInput(r.addend)) z = dnnl_ctx::wrap(layout(r.addend, cs.y), view(r.addend, false));
  const uint64_t *wCounter = r.wOut() ? nullptr : opx.dv_p->hostWriteCounter(op.inTensor(r.w));
  std::shared_ptr<BatchNormFold> fold;
  memory bnScale, bnShift;
  if (r.bn >= 0) {
    fold = std::make_shared<BatchNormFold>(opx, r.bn, cs.m());
    Shape channel(cs.y.size(), 1);
    channel[1] = cs.m();
    bnScale = dnnl_ctx::wrap(dnnl_ctx::plainDesc(channel), fold->s.raw());
    bnShift = dnnl_ctx::wrap(dnnl_ctx::plainDesc(channel), fold->t.raw());
  }
  const bool winograd = r.pass == ConvPass::Forward && op.opid.type != "ConvTranspose" && winogradFits(cs, wCounter);
  try {
    const Tensor *yt = chained ? op.outTensor(0) : nullptr;
    if (opx.op_p->opid.type == "ConvTranspose")
      growDeconv(*step, cs, w, b, y, x, wCounter);
    else if (winograd)
      growWinograd(*step, cs, r.relu, x, w, b, z, y, yt, wCounter, bnScale, bnShift);
    else if (r.pass == ConvPass::Forward)
      growForward(*step, cs, r.relu, x, w, b, z, y, yt, wCounter, bnScale, bnShift);
    else
      growBackward(*step, cs, r.pass, x, w, y);
  } catch (const dnnl::error &) {
    if (chained && (!(x.get_desc() == dnnl_ctx::plainDesc(cs.x)) || (z && !(z.get_desc() == y.get_desc()))))
      throw internal_error("{}: oneDNN rejected a convolution whose input is in a oneDNN layout",
                           op.debugName());
    return false;
  }
  if (r.pass == ConvPass::Forward && op.opid.type != "ConvTranspose") readsStream(opx, r.x, x);
  if (winograd) logging::opx::debug("{}: Winograd F(2x2, 3x3) on 16-channel blocks", op.debugName());
  // FLOAT weights (no staging buffer) kept in oneDNN's layout: the executor may free their plain device copy.
  if (wCounter && op.inInfo(r.w).dataType() == DataType::FLOAT)
    for (size_t i = 0; i < step->cachedCount(); ++i)
      opx.dv_p->addDerivedCopy(op.inTensor(r.w), {[step, i](const void *p) { step->refreshCached(i, p); },
                                                 [step, i](void *p) { step->writeBackCached(i, p); }});
  if (fold) prog.add([fold] { fold->coefficients(); });
  addStep(prog, step, opx);
  return true;
}
#endif

class ConvOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    if (op_p->opid.type != "MultiConv") {
      auto r = convRoles(op_p->opid.type);
#ifdef POPART_WITH_DNNL
      if (r.pass == ConvPass::Forward && op_p->opid.type != "ConvTransposeDataGrad")
        tensor_layout::publish(*op_p->outTensor(0), {});  // plain unless growForward keeps a oneDNN layout
#endif
      r.relu = op_p->attr<Attributes::Int>("relu", 0) != 0;
      if (op_p->opid.type == "ConvFused" && hasInput(4)) r.bn = 4;
      return growConv(prog, r);
    }
    for (int i = 0; i < op_p->output->n(); ++i) growConv(prog, {ConvPass::Forward, 3 * i, 3 * i + 1, i, 3 * i + 2, i});
  }

private:
  void growConv(popx::Sequence &prog, const ConvRoles &r) const {
    auto cs = convShape(*this, r);
    auto type = inInfo(0).dataType();
#ifdef POPART_WITH_DNNL
    bool empty = r.yOut() ? outInfo(r.y).nelms() == 0 : inInfo(r.y).nelms() == 0;
    empty = empty || (r.xOut() ? outInfo(r.x).nelms() == 0 : inInfo(r.x).nelms() == 0);
    if (dnnl_ctx::usesDnnl(type) && !empty && growConvDnnl(prog, *this, cs, r)) return;
#endif
    auto ptr = [&](int i, bool isOut) -> void * { return isOut ? getOutTensor(i).raw() : getInTensor(i).raw(); };
    void *x = ptr(r.x, r.xOut()), *w = ptr(r.w, r.wOut()), *y = ptr(r.y, r.yOut());
    const void *b = r.bias >= 0 && hasInput(r.bias) ? getInTensor(r.bias).raw() : nullptr;
    const void *z = r.addend >= 0 && hasInput(r.addend) ? getInTensor(r.addend).raw() : nullptr;
    std::shared_ptr<BatchNormFold> fold = r.bn >= 0 ? std::make_shared<BatchNormFold>(*this, r.bn, cs.m()) : nullptr;
    prog.add([=] {
      dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        ConvLoops<T> loops(cs);
        if (r.pass == ConvPass::Forward) {
          loops.forward(static_cast<const T *>(x), static_cast<const T *>(w), static_cast<const T *>(b),
                        static_cast<T *>(y));
          if (fold) {
            fold->coefficients();
            fold->apply(static_cast<T *>(y), cs.y[0], cs.nelmsY() / std::max<int64_t>(cs.y[0] * cs.m(), 1));
          }
          if (z || r.relu) addRelu(static_cast<T *>(y), static_cast<const T *>(z), r.relu, cs.nelmsY());
        }
        else if (r.pass == ConvPass::Data)
          loops.data(static_cast<const T *>(y), static_cast<const T *>(w), static_cast<const T *>(b),
                     static_cast<T *>(x));
        else
          loops.weights(static_cast<const T *>(y), static_cast<const T *>(x), static_cast<T *>(w));
      });
    });
  }
};

/// dB[m] = sum over n and positions of dY[n, m, ...].
void convBiasGrad(KernelContext &ctx) {
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    using Acc = compute_t<T>;
    const auto &s = ctx.inInfo(0).shape();
    auto dy = ctx.in<T>(0).data();
    auto db = ctx.out<T>(0).data();
    int64_t n = s[0], m = s[1], size = ctx.inInfo(0).nelms() / std::max<int64_t>(n * m, 1);
    popx::Opx::parallelFor(m, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        Acc acc = 0;
        for (int64_t i = 0; i < n; ++i) {
          const T *p = dy + (i * m + c) * size;
          Acc part = 0;  // lane-wise partial sums (a serial float sum runs at one add per FP latency)
#pragma omp simd reduction(+ : part)
          for (int64_t j = 0; j < size; ++j) part += Acc(p[j]);
          acc += part;
        }
        db[c] = static_cast<T>(acc);
      }
    }, 1);
  });
}

/// ConvFlipWeights(Grad): Y[g*C/G + c, m, k] = W[g*M/G + m, c, K-1-k] (W [M, C/G, k...], attribute group G).
void convFlipWeights(KernelContext &ctx) {
  const auto &s = ctx.inInfo(0).shape();
  int64_t group = ctx.op().attr<Attributes::Int>("group", 1), mg = s[0] / group, cg = s[1], k = 1;
  for (size_t i = 2; i < s.size(); ++i) k *= s[i];
  dispatchFloat(ctx.inInfo(0).dataType(), [&](auto tag) {
    using T = decltype(tag);
    const T *w = ctx.in<T>(0).data();
    T *y = ctx.out<T>(0).data();
    popx::Opx::parallelFor(group * cg * mg, [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {  // row = (g * C/G + c) * M/G + m of Y
        int64_t m = row % mg, gc = row / mg, g = gc / cg, c = gc % cg;
        const T *src = w + ((g * mg + m) * cg + c) * k;
        std::reverse_copy(src, src + k, y + row * k);  // flipping every spatial dim reverses the flat block
      }
    }, 64);
  });
}

} // namespace
static popx::OpxCreator<ConvOpx> convOpxCreator({onnxOp("Conv"), internalOp("ConvFused"), onnxOp("ConvTranspose"), graphcoreOp("MultiConv"),
                                                 internalOp("ConvDataGrad"),
                                                 internalOp("ConvWeightsGrad"), internalOp("ConvTransposeDataGrad"),
                                                 internalOp("ConvTransposeWeightsGrad")});
POPART_REGISTER_KERNEL(internalOp("ConvBiasGrad"), convBiasGrad);
POPART_REGISTER_KERNEL(graphcoreOp("ConvFlipWeights"), convFlipWeights);
POPART_REGISTER_KERNEL(internalOp("ConvFlipWeightsGrad"), convFlipWeights);
} // namespace popart::cpu
