// Conv: oneDNN convolution for FLOAT/FLOAT16 (FLOAT16 staged in float) in the layouts oneDNN prefers, with
// reorders from/to the plain NCHW buffers at each run (weights can change between runs); plain loop otherwise:
// Y[n, m, o] = B[m] + sum_{c, t} X[n, group(m) * C/G + c, o * s - padBegin + t * d] * W[m, c, t].
#include "dispatch.hpp"
#include "ops/conv_attributes.hpp"
#include "popart/popx/opx.hpp"
#include "window_util.hpp"
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/primitive_step.hpp"
#endif

namespace popart::cpu {
namespace {

struct ConvShape {
  int64_t n, c, m, group;
  WindowGeometry g;
};

ConvShape convShape(const popx::Opx &opx) {
  const auto &x = opx.inShape(0), &w = opx.inShape(1);
  Shape spatial(x.begin() + 2, x.end()), kernel(w.begin() + 2, w.end());
  return {x[0], x[1], w[0], opx.op_p->attr<Attributes::Int>("group", 1), windowGeometry(*opx.op_p, spatial, kernel)};
}

template <class T> void convLoop(const ConvShape &cs, const T *x, const T *w, const T *bias, T *y) {
  using Acc = compute_t<T>;
  Window3 win(cs.g);
  int64_t cg = cs.c / cs.group, mg = cs.m / cs.group;
  int64_t inSize = win.inSize(), outSize = win.outSize(), kSize = win.kernelSize();
  popx::Opx::parallelFor(cs.n * cs.m, [&](int64_t b, int64_t e) {
    for (int64_t nm = b; nm < e; ++nm) {
      int64_t n = nm / cs.m, m = nm % cs.m, c0 = (m / mg) * cg;
      T *yp = y + nm * outSize;
      for (int64_t od = 0; od < win.out[0]; ++od)
        for (int64_t oh = 0; oh < win.out[1]; ++oh)
          for (int64_t ow = 0; ow < win.out[2]; ++ow) {
            Acc acc = bias ? Acc(bias[m]) : Acc(0);
            for (int64_t c = 0; c < cg; ++c) {
              const T *xp = x + (n * cs.c + c0 + c) * inSize;
              const T *wp = w + (m * cg + c) * kSize;
              for (int64_t kd = 0; kd < win.k[0]; ++kd) {
                int64_t id = win.pos(0, od, kd);
                if (!win.inside(0, id)) continue;
                for (int64_t kh = 0; kh < win.k[1]; ++kh) {
                  int64_t ih = win.pos(1, oh, kh);
                  if (!win.inside(1, ih)) continue;
                  for (int64_t kw = 0; kw < win.k[2]; ++kw) {
                    int64_t iw = win.pos(2, ow, kw);
                    if (!win.inside(2, iw)) continue;
                    acc += Acc(xp[(id * win.in[1] + ih) * win.in[2] + iw]) * Acc(wp[(kd * win.k[1] + kh) * win.k[2] + kw]);
                  }
                }
              }
            }
            yp[(od * win.out[1] + oh) * win.out[2] + ow] = static_cast<T>(acc);
          }
    }
  }, 1);
}

#ifdef POPART_WITH_DNNL
using dnnl::memory;

memory::desc convAnyDesc(const memory::dims &d) { return memory::desc(d, memory::data_type::f32, memory::format_tag::any); }

/// Creates the primitive descriptor in oneDNN's preferred layouts; false when it has no implementation.
bool convPrimitiveDesc(const ConvShape &cs, const memory::dims &x, const memory::dims &w, const memory::dims &y,
                       bool bias, dnnl::convolution_forward::primitive_desc &pd) {
  const auto &g = cs.g;
  memory::dims strides(g.strides.begin(), g.strides.end()), dil, pl(g.padsBegin.begin(), g.padsBegin.end()),
      pr(g.padsEnd.begin(), g.padsEnd.end());
  for (auto d : g.dilations) dil.push_back(d - 1);  // oneDNN counts the gaps
  auto kind = dnnl::prop_kind::forward_inference;
  auto algo = dnnl::algorithm::convolution_direct;
  try {
    if (bias)
      pd = {dnnl_ctx::engine(), kind, algo, convAnyDesc(x), convAnyDesc(w), dnnl_ctx::plainDesc({cs.m}), convAnyDesc(y),
            strides, dil, pl, pr};
    else
      pd = {dnnl_ctx::engine(), kind, algo, convAnyDesc(x), convAnyDesc(w), convAnyDesc(y), strides, dil, pl, pr};
    return true;
  } catch (const dnnl::error &) {
    return false;
  }
}

bool growConvDnnl(popx::Sequence &prog, const popx::Opx &opx, const ConvShape &cs) {
  Shape wShape = opx.inShape(1);
  if (cs.group > 1) {  // [G, M/G, C/G, k...]: the same bytes as [M, C/G, k...]
    wShape[0] = cs.m / cs.group;
    wShape.insert(wShape.begin(), cs.group);
  }
  auto xd = dnnl_ctx::dims(opx.inShape(0)), wd = dnnl_ctx::dims(wShape), yd = dnnl_ctx::dims(opx.outShape(0));
  dnnl::convolution_forward::primitive_desc pd;
  if (!convPrimitiveDesc(cs, xd, wd, yd, opx.hasInput(2), pd)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto &st = step->staging;
  auto xPlain = dnnl_ctx::wrap(dnnl_ctx::plainDesc(opx.inShape(0)), st.in(opx, 0).raw());
  auto wPlain = dnnl_ctx::wrap(dnnl_ctx::plainDesc(wShape), st.in(opx, 1).raw());
  auto yPlain = dnnl_ctx::wrap(dnnl_ctx::plainDesc(opx.outShape(0)), st.out(opx, 0).raw());
  PrimitiveStep::Args args{{DNNL_ARG_SRC, step->inputAs(xPlain, pd.src_desc())},
                           {DNNL_ARG_WEIGHTS, step->inputAs(wPlain, pd.weights_desc())}};
  if (opx.hasInput(2)) args[DNNL_ARG_BIAS] = dnnl_ctx::plainMemory({cs.m}, st.in(opx, 2).raw());
  auto y = step->outputAs(yPlain, pd.dst_desc());
  args[DNNL_ARG_DST] = y;
  step->add(dnnl::convolution_forward(pd), std::move(args));
  step->finishOutput(y, yPlain);
  addStep(prog, step, opx);
  return true;
}
#endif

class ConvOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto cs = convShape(*this);
    auto type = inInfo(0).dataType();
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(type) && outInfo(0).nelms() > 0 && growConvDnnl(prog, *this, cs)) return;
#endif
    const void *x = getInTensor(0).raw(), *w = getInTensor(1).raw();
    const void *b = hasInput(2) ? getInTensor(2).raw() : nullptr;
    void *y = getOutTensor(0).raw();
    prog.add([=] {
      dispatchFloat(type, [&](auto tag) {
        using T = decltype(tag);
        convLoop(cs, static_cast<const T *>(x), static_cast<const T *>(w), static_cast<const T *>(b), static_cast<T *>(y));
      });
    });
  }
};

} // namespace
static popx::OpxCreator<ConvOpx> convOpxCreator(onnxOp("Conv"));
} // namespace popart::cpu
