// Forward of ai.onnx RNN/GRU/LSTM on oneDNN's vanilla_rnn / gru / lbr_gru / lstm primitives, for the
// configurations they compute exactly: FLOAT/FLOAT16, no sequence_lens, no clip, no input_forget, the default
// activations (RNN: Tanh or Sigmoid, the same for both directions). One primitive per direction.
// W, R (ONNX gate blocks i,o,f,c; oneDNN wants i,f,c,o), the summed biases and the peepholes (ONNX i,o,f;
// oneDNN i,f,o) are copied into preallocated ldgoi/ldgo buffers and reordered into oneDNN's preferred layouts:
// once at grow() when they are all Const, else at each run (Variables change between runs). The [T, N, H]
// results are copied into Y.
#ifdef POPART_WITH_DNNL
#include "cpu/devicex.hpp"
#include "cpu/dnnl/primitive_step.hpp"
#include "rnn_engine.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

using dnnl::memory;
using RnnTag = memory::format_tag;

bool rnnDnnlSupports(const popx::Opx &opx, const RnnConfig &c) {
  if (!dnnl_ctx::usesDnnl(opx.inInfo(kRnnX).dataType()) || opx.hasInput(kRnnSeqLens) || c.hasClip || c.inputForget)
    return false;
  if (c.seq == 0 || c.batch == 0 || c.input == 0 || c.hidden == 0) return false;
  const RnnAct dflt[3] = {RnnAct::Sigmoid, RnnAct::Tanh, RnnAct::Tanh};
  for (size_t i = 0; i < c.acts.size(); ++i) {
    const RnnAct a = c.acts[i].kind;
    // Not Relu: oneDNN's is max(x, 0), which turns NaN into 0; the loops keep it.
    const bool rnnOk = a == c.acts[0].kind && (a == RnnAct::Tanh || a == RnnAct::Sigmoid);
    if (c.cell != RnnCell::Rnn ? a != dflt[i % c.numActs()] : !rnnOk) return false;
  }
  return true;
}

// ONNX gate block of oneDNN gate k.
int64_t rnnDnnlGate(const RnnConfig &c, int64_t k) {
  constexpr int64_t lstm[4] = {0, 2, 3, 1};
  return c.cell == RnnCell::Lstm ? lstm[k] : k;
}

/// Per-direction host buffers in oneDNN's plain layouts, refreshed at each run.
struct RnnDnnlWeights {
  float *w, *r, *bias, *peep;
};

void rnnDnnlFill(const RnnConfig &c, int64_t d, const float *W, const float *R, const float *B, const float *P,
                 const RnnDnnlWeights &o) {
  const int64_t H = c.hidden, I = c.input, G = c.gates(), GH = G * H;
  for (int64_t k = 0; k < G; ++k) {
    const int64_t g = rnnDnnlGate(c, k);
    std::memcpy(o.w + k * H * I, W + d * GH * I + g * H * I, sizeof(float) * H * I);
    std::memcpy(o.r + k * H * H, R + d * GH * H + g * H * H, sizeof(float) * H * H);
    for (int64_t j = 0; j < H; ++j) {
      const float *wb = B ? B + d * 2 * GH : nullptr;
      const bool lbrH = c.linearBeforeReset && g == 2;  // lbr_gru keeps Rb_h as a fourth bias block
      o.bias[k * H + j] = wb ? wb[g * H + j] + (lbrH ? 0.f : wb[GH + g * H + j]) : 0.f;
      if (lbrH) o.bias[3 * H + j] = wb ? wb[GH + g * H + j] : 0.f;
    }
  }
  if (o.peep)
    for (int64_t k = 0; k < 3; ++k)
      std::memcpy(o.peep + k * H, P + d * 3 * H + (k == 0 ? 0 : k == 1 ? 2 : 1) * H, sizeof(float) * H);
}

struct RnnDnnlPrimitive {
  dnnl::primitive prim;
  memory::desc weightsLayer, weightsIter;
};

struct RnnDnnlDescs {
  memory::desc src, srcIter, srcIterC, w, r, peep, bias, dst, dstIter, dstIterC;
};

template <class PD, class P> RnnDnnlPrimitive rnnDnnlMake(const PD &pd) {
  return {P(pd), pd.weights_layer_desc(), pd.weights_iter_desc()};
}

RnnDnnlPrimitive rnnDnnlCreate(const RnnConfig &c, dnnl::rnn_direction dir, const RnnDnnlDescs &m) {
  auto &e = dnnl_ctx::engine();
  const auto inf = dnnl::prop_kind::forward_inference;
  if (c.cell == RnnCell::Lstm) {
    using PD = dnnl::lstm_forward::primitive_desc;
    if (!m.peep.is_zero())
      return rnnDnnlMake<PD, dnnl::lstm_forward>(PD(e, inf, dir, m.src, m.srcIter, m.srcIterC, m.w, m.r, m.peep, m.bias,
                                                    m.dst, m.dstIter, m.dstIterC));
    return rnnDnnlMake<PD, dnnl::lstm_forward>(
        PD(e, inf, dir, m.src, m.srcIter, m.srcIterC, m.w, m.r, m.bias, m.dst, m.dstIter, m.dstIterC));
  }
  if (c.cell == RnnCell::Gru && c.linearBeforeReset) {
    using PD = dnnl::lbr_gru_forward::primitive_desc;
    return rnnDnnlMake<PD, dnnl::lbr_gru_forward>(
        PD(e, inf, dir, m.src, m.srcIter, m.w, m.r, m.bias, m.dst, m.dstIter));
  }
  if (c.cell == RnnCell::Gru) {
    using PD = dnnl::gru_forward::primitive_desc;
    return rnnDnnlMake<PD, dnnl::gru_forward>(PD(e, inf, dir, m.src, m.srcIter, m.w, m.r, m.bias, m.dst, m.dstIter));
  }
  using PD = dnnl::vanilla_rnn_forward::primitive_desc;
  const RnnAct a = c.acts[0].kind;
  const auto alg = a == RnnAct::Tanh ? dnnl::algorithm::eltwise_tanh : dnnl::algorithm::eltwise_logistic;
  return rnnDnnlMake<PD, dnnl::vanilla_rnn_forward>(
      PD(e, inf, alg, dir, m.src, m.srcIter, m.w, m.r, m.bias, m.dst, m.dstIter));
}

/// Float buffers of one direction: oneDNN-layout weights, initial states, results.
struct RnnDnnlDir {
  RnnDnnlWeights wts;
  float *h0 = nullptr, *c0 = nullptr, *y = nullptr, *yh = nullptr, *yc = nullptr;
};

float *rnnDnnlScratch(const popx::Opx &opx, int64_t n) {
  return opx.createTensor(TensorInfo(DataType::FLOAT, Shape{n})).data<float>();
}

int64_t rnnDnnlBiasGates(const RnnConfig &c) { return c.cell == RnnCell::Gru && c.linearBeforeReset ? 4 : c.gates(); }

RnnDnnlDir rnnDnnlBuffers(const popx::Opx &opx, const RnnConfig &c, bool peep, bool h0, bool c0, bool yh, bool yc) {
  const int64_t N = c.batch, H = c.hidden, GH = c.gates() * H;
  RnnDnnlDir b;
  b.wts = {rnnDnnlScratch(opx, GH * c.input), rnnDnnlScratch(opx, GH * H), rnnDnnlScratch(opx, rnnDnnlBiasGates(c) * H),
           peep ? rnnDnnlScratch(opx, 3 * H) : nullptr};
  if (h0) b.h0 = rnnDnnlScratch(opx, N * H);
  if (c0) b.c0 = rnnDnnlScratch(opx, N * H);
  b.y = rnnDnnlScratch(opx, c.seq * N * H);
  if (yh) b.yh = rnnDnnlScratch(opx, N * H);
  if (yc) b.yc = rnnDnnlScratch(opx, N * H);
  return b;
}

RnnDnnlDescs rnnDnnlDescs(const RnnConfig &c, const RnnDnnlDir &b) {
  const int64_t T = c.seq, N = c.batch, I = c.input, H = c.hidden, G = c.gates();
  const auto f32 = memory::data_type::f32;
  const memory::desc iter({1, 1, N, H}, f32, RnnTag::ldnc);
  RnnDnnlDescs m;
  m.src = memory::desc({T, N, I}, f32, c.batchMajor ? RnnTag::ntc : RnnTag::tnc);
  m.srcIter = b.h0 ? iter : memory::desc();
  m.srcIterC = b.c0 ? iter : memory::desc();
  m.w = memory::desc({1, 1, I, G, H}, f32, RnnTag::any);
  m.r = memory::desc({1, 1, H, G, H}, f32, RnnTag::any);
  if (b.wts.peep) m.peep = memory::desc({1, 1, 3, H}, f32, RnnTag::ldgo);
  m.bias = memory::desc({1, 1, rnnDnnlBiasGates(c), H}, f32, RnnTag::ldgo);
  m.dst = memory::desc({T, N, H}, f32, RnnTag::tnc);
  m.dstIter = b.yh ? iter : memory::desc();
  m.dstIterC = b.yc ? iter : memory::desc();
  return m;
}

// [D, N, H] (layout 0) or [N, D, H] state offsets; Y [T, D, N, H] or [N, T, D, H].
int64_t rnnDnnlStateOff(const RnnConfig &c, int64_t d, int64_t n) {
  return (c.batchMajor ? n * c.dirs + d : d * c.batch + n) * c.hidden;
}

int64_t rnnDnnlYOff(const RnnConfig &c, int64_t t, int64_t d, int64_t n) {
  return (c.batchMajor ? (n * c.seq + t) * c.dirs + d : (t * c.dirs + d) * c.batch + n) * c.hidden;
}

void rnnDnnlCopyOut(const RnnConfig &c, const std::vector<RnnDnnlDir> &dirs, float *Y, float *Yh, float *Yc) {
  const int64_t T = c.seq, N = c.batch, H = c.hidden;
  for (int64_t d = 0; d < c.dirs; ++d) {
    const RnnDnnlDir &b = dirs[static_cast<size_t>(d)];
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t t = 0; Y && t < T; ++t)
        std::memcpy(Y + rnnDnnlYOff(c, t, d, n), b.y + (t * N + n) * H, sizeof(float) * H);
      if (Yh) std::memcpy(Yh + rnnDnnlStateOff(c, d, n), b.yh + n * H, sizeof(float) * H);
      if (Yc) std::memcpy(Yc + rnnDnnlStateOff(c, d, n), b.yc + n * H, sizeof(float) * H);
    }
  }
}

/// The counter of Devicex::hostWriteCounter shared by every weight input (W, R,
/// B, P) when only the host writes them all, else null: oneDNN's copies of the
/// weights are then refreshed only when it changes.
const uint64_t *rnnDnnlWeightsCounter(const popx::Opx &opx, bool peep) {
  const uint64_t *counter = nullptr;
  for (InIndex i : {kRnnW, kRnnR, kRnnB, kRnnP}) {
    if (!opx.hasInput(i) || (i == kRnnP && !peep)) continue;
    const uint64_t *c = opx.dv_p->hostWriteCounter(opx.op_p->inTensor(i));
    if (!c || (counter && c != counter)) return nullptr;
    counter = c;
  }
  return counter;
}

} // namespace

bool growRnnDnnl(const popx::Opx &opx, const RnnConfig &c, popx::Sequence &prog) {
  if (!rnnDnnlSupports(opx, c)) return false;
  const int64_t N = c.batch, I = c.input, H = c.hidden, G = c.gates();
  const bool lstm = c.cell == RnnCell::Lstm, peep = lstm && opx.hasInput(kRnnP);
  const uint64_t *counter = rnnDnnlWeightsCounter(opx, peep);
  auto st = std::make_shared<FloatStaging>();
  auto in = [&](InIndex i) { return opx.hasInput(i) ? st->in(opx, i).data<float>() : nullptr; };
  auto out = [&](OutIndex i) { return opx.hasOutput(i) ? st->out(opx, i).data<float>() : nullptr; };
  const float *X = in(kRnnX), *W = in(kRnnW), *R = in(kRnnR), *B = in(kRnnB);
  const float *P = peep ? in(kRnnP) : nullptr;
  const float *H0 = in(kRnnInitH), *C0 = lstm ? in(kRnnInitC) : nullptr;
  float *Y = out(0), *Yh = out(1), *Yc = lstm ? out(2) : nullptr;

  auto step = std::make_shared<PrimitiveStep>();
  std::vector<RnnDnnlDir> dirs;
  for (int64_t d = 0; d < c.dirs; ++d) {
    const RnnDnnlDir &b = dirs.emplace_back(rnnDnnlBuffers(opx, c, peep, H0, C0, Yh, Yc));
    const RnnDnnlDescs m = rnnDnnlDescs(c, b);
    RnnDnnlPrimitive p;
    try {
      p = rnnDnnlCreate(c, c.reversed(d) ? dnnl::rnn_direction::unidirectional_right2left
                                         : dnnl::rnn_direction::unidirectional_left2right, m);
    } catch (const dnnl::error &) {
      return false;
    }
    using dnnl_ctx::wrap;
    const auto f32 = memory::data_type::f32;
    const memory wPlain = wrap(memory::desc({1, 1, I, G, H}, f32, RnnTag::ldgoi), b.wts.w);
    const memory rPlain = wrap(memory::desc({1, 1, H, G, H}, f32, RnnTag::ldgoi), b.wts.r);
    PrimitiveStep::Args args{{DNNL_ARG_SRC_LAYER, wrap(m.src, const_cast<float *>(X))},
                             {DNNL_ARG_WEIGHTS_LAYER, step->inputCachedAs(wPlain, p.weightsLayer, counter)},
                             {DNNL_ARG_WEIGHTS_ITER, step->inputCachedAs(rPlain, p.weightsIter, counter)},
                             {DNNL_ARG_BIAS, wrap(m.bias, b.wts.bias)},
                             {DNNL_ARG_DST_LAYER, wrap(m.dst, b.y)}};
    if (peep) args[DNNL_ARG_WEIGHTS_PEEPHOLE] = wrap(m.peep, b.wts.peep);
    if (b.h0) args[DNNL_ARG_SRC_ITER] = wrap(m.srcIter, b.h0);
    if (b.c0) args[DNNL_ARG_SRC_ITER_C] = wrap(m.srcIterC, b.c0);
    if (b.yh) args[DNNL_ARG_DST_ITER] = wrap(m.dstIter, b.yh);
    if (b.yc) args[DNNL_ARG_DST_ITER_C] = wrap(m.dstIterC, b.yc);
    step->add(p.prim, std::move(args));
  }
  step->epilogue = [=] { rnnDnnlCopyOut(c, dirs, Y, Yh, Yc); };
  // The gate-reordered weights are refilled at every run, or only after host
  // writes when `counter` is set (the step's cached reorders follow the same counter).
  auto filledAt = std::make_shared<uint64_t>(~uint64_t{0});
  prog.add([=] {
    st->toFloat();
    const bool refill = !counter || *filledAt != *counter;
    if (counter) *filledAt = *counter;
    for (int64_t d = 0; d < c.dirs; ++d) {
      const RnnDnnlDir &b = dirs[static_cast<size_t>(d)];
      if (refill) rnnDnnlFill(c, d, W, R, B, P, b.wts);
      for (int64_t n = 0; n < N; ++n) {
        if (b.h0) std::memcpy(b.h0 + n * H, H0 + rnnDnnlStateOff(c, d, n), sizeof(float) * H);
        if (b.c0) std::memcpy(b.c0 + n * H, C0 + rnnDnnlStateOff(c, d, n), sizeof(float) * H);
      }
    }
  });
  addStep(prog, step, opx);
  prog.add([st] { st->fromFloat(); });
  return true;
}

} // namespace popart::cpu
#endif
