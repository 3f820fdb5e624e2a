// Kernels of the recurrent ops and their gradients (formulas in ops/rnn.cpp): the ai.onnx forward on oneDNN's
// RNN primitives where they fit (rnn_dnnl.cpp), everything else on the loop engine of rnn_engine.cpp.
// FLOAT and FLOAT16 (staged through float copies) compute in float, DOUBLE in double.
// ai.graphcore LSTM converts its per-gate [input + hidden, hidden] weight blocks (gate order forget, input,
// candidate, output) into ONNX W/R (order input, output, forget, cell) at each run, and the gradients back.
#include "cpu/dnnl/float_staging.hpp"
#include "popart/error.hpp"
#include "rnn_engine.hpp"
#include <algorithm>
#include <memory>
#include <type_traits>

namespace popart::cpu {
namespace {

/// Compute-type pointers to an Opx's tensors; FLOAT16 ones go through `st`. Absent tensors: null.
template <class C> struct RnnViews {
  const popx::Opx &opx;
  FloatStaging &st;
  bool half = opx.inInfo(0).dataType() == DataType::FLOAT16;
  const C *in(InIndex i) const {
    if (!opx.hasInput(i)) return nullptr;
    return static_cast<const C *>(half ? st.in(opx, i).raw() : opx.getInTensor(i).raw());
  }
  C *out(OutIndex i) const {
    if (!opx.hasOutput(i)) return nullptr;
    return static_cast<C *>(half ? st.out(opx, i).raw() : opx.getOutTensor(i).raw());
  }
  /// Output i, or session-owned scratch of n elements when the output is absent.
  C *outOrScratch(OutIndex i, int64_t n) const { return opx.hasOutput(i) ? out(i) : scratch(n); }
  C *scratch(int64_t n) const {
    const DataType t = std::is_same_v<C, double> ? DataType::DOUBLE : DataType::FLOAT;
    return static_cast<C *>(opx.createTensor(TensorInfo(t, Shape{std::max<int64_t>(n, 1)})).raw());
  }
};

template <class C> RnnTensors<C> onnxRnnInputs(const RnnViews<C> &v) {
  RnnTensors<C> t;
  t.x = v.in(kRnnX), t.w = v.in(kRnnW), t.r = v.in(kRnnR), t.b = v.in(kRnnB);
  t.h0 = v.in(kRnnInitH), t.c0 = v.in(kRnnInitC), t.p = v.in(kRnnP);
  if (v.opx.hasInput(kRnnSeqLens)) t.lens = v.opx.getInTensor(kRnnSeqLens).template data<int32_t>();
  return t;
}

template <class C> void growOnnxRnn(const popx::Opx &opx, popx::Sequence &prog) {
  const RnnConfig c = onnxRnnConfig(*opx.op_p, rnnCellOf(opx.op_p->opid.type));
#ifdef POPART_WITH_DNNL
  if constexpr (std::is_same_v<C, float>)
    if (growRnnDnnl(opx, c, prog)) return;
#endif
  auto st = std::make_shared<FloatStaging>();
  RnnViews<C> v{opx, *st};
  RnnTensors<C> t = onnxRnnInputs(v);
  t.y = v.out(0), t.yh = v.out(1), t.yc = v.out(2);
  C *ws = v.scratch(rnnWorkspaceSize(c, false));
  prog.add([c, t, st, ws] {
    st->toFloat();
    rnnForward(c, t, ws);
    st->fromFloat();
  });
}

// Grad op: forward inputs at their indices, then dY, dY_h, dY_c; outputs: gradients at the input indices.
template <class C> void growOnnxRnnGrad(const popx::Opx &opx, popx::Sequence &prog) {
  const RnnConfig c = onnxRnnConfig(*opx.op_p, rnnCellOf(opx.op_p->opid.type));
  auto st = std::make_shared<FloatStaging>();
  RnnViews<C> v{opx, *st};
  const RnnTensors<C> t = onnxRnnInputs(v);
  const int64_t GH = c.gates() * c.hidden;
  RnnGrads<C> g;
  g.dy = v.in(kRnnNumIn), g.dyh = v.in(kRnnNumIn + 1), g.dyc = v.in(kRnnNumIn + 2);
  g.dx = v.outOrScratch(kRnnX, c.seq * c.batch * c.input);
  g.dw = v.outOrScratch(kRnnW, c.dirs * GH * c.input);
  g.dr = v.outOrScratch(kRnnR, c.dirs * GH * c.hidden);
  g.db = v.outOrScratch(kRnnB, c.dirs * 2 * GH);
  g.dh0 = v.out(kRnnInitH), g.dc0 = v.out(kRnnInitC), g.dp = v.out(kRnnP);
  C *ws = v.scratch(rnnWorkspaceSize(c, true));
  prog.add([c, t, g, st, ws] {
    st->toFloat();
    rnnBackward(c, t, g, ws);
    st->fromFloat();
  });
}

// ai.graphcore LSTM gate k (forget, input, candidate, output) is ONNX gate kGcToOnnxGate[k] (i, o, f, c).
constexpr int64_t kGcToOnnxGate[4] = {2, 0, 3, 1};

/// ONNX W [4H, I], R [4H, H], B [8H] (recurrent bias zero) from weights [4, I + H, H] and biases [4, H].
template <class C> void gcLstmToOnnx(const RnnConfig &c, const C *weights, const C *biases, C *w, C *r, C *b) {
  const int64_t I = c.input, H = c.hidden;
  for (int64_t k = 0; k < 4; ++k) {
    const int64_t g = kGcToOnnxGate[k];
    const C *blk = weights + k * (I + H) * H;
    for (int64_t j = 0; j < H; ++j) {
      for (int64_t i = 0; i < I; ++i) w[(g * H + j) * I + i] = blk[i * H + j];
      for (int64_t h = 0; h < H; ++h) r[(g * H + j) * H + h] = blk[(I + h) * H + j];
      b[g * H + j] = biases ? biases[k * H + j] : C(0);
      b[4 * H + g * H + j] = 0;
    }
  }
}

template <class C>
void gcLstmFromOnnx(const RnnConfig &c, const C *dw, const C *dr, const C *db, C *dweights, C *dbiases) {
  const int64_t I = c.input, H = c.hidden;
  for (int64_t k = 0; k < 4; ++k) {
    const int64_t g = kGcToOnnxGate[k];
    C *blk = dweights ? dweights + k * (I + H) * H : nullptr;
    for (int64_t j = 0; j < H; ++j) {
      if (blk) {
        for (int64_t i = 0; i < I; ++i) blk[i * H + j] = dw[(g * H + j) * I + i];
        for (int64_t h = 0; h < H; ++h) blk[(I + h) * H + j] = dr[(g * H + j) * H + h];
      }
      if (dbiases) dbiases[k * H + j] = db[g * H + j];
    }
  }
}

/// The engine tensors of an ai.graphcore LSTM: converted weights in scratch, states from initial_state.
template <class C> struct GcLstm {
  RnnConfig c;
  RnnTensors<C> t;
  const C *weights, *biases;
  C *w, *r, *b;
  GcLstm(const RnnViews<C> &v) : c(graphcoreLstmConfig(*v.opx.op_p)) {
    const int64_t H = c.hidden;
    weights = v.in(1), biases = v.in(2);
    w = v.scratch(4 * H * c.input), r = v.scratch(4 * H * H), b = v.scratch(8 * H);
    t.x = v.in(0), t.w = w, t.r = r, t.b = b;
    if (const C *s = v.in(3)) t.h0 = s, t.c0 = s + c.batch * H;
  }
  void convert() const { gcLstmToOnnx(c, weights, biases, w, r, b); }
};

template <class C> void growGcLstm(const popx::Opx &opx, popx::Sequence &prog) {
  auto st = std::make_shared<FloatStaging>();
  RnnViews<C> v{opx, *st};
  GcLstm<C> m(v);
  const bool full = opx.op_p->attr<Attributes::Int>("outputFullSequence", 1) != 0;
  (full ? m.t.y : m.t.yh) = v.out(0);
  m.t.yc = v.out(1);
  C *ws = v.scratch(rnnWorkspaceSize(m.c, false));
  prog.add([m, st, ws] {
    st->toFloat();
    m.convert();
    rnnForward(m.c, m.t, ws);
    st->fromFloat();
  });
}

// Inputs X, weights, biases?, initial_state?, d output, d cell_state; outputs at the input indices.
template <class C> void growGcLstmGrad(const popx::Opx &opx, popx::Sequence &prog) {
  auto st = std::make_shared<FloatStaging>();
  RnnViews<C> v{opx, *st};
  GcLstm<C> m(v);
  const int64_t H = m.c.hidden, BH = m.c.batch * H;
  const bool full = opx.op_p->attr<Attributes::Int>("outputFullSequence", 1) != 0;
  RnnGrads<C> g;
  (full ? g.dy : g.dyh) = v.in(4);
  g.dyc = v.in(5);
  g.dx = v.outOrScratch(0, m.c.seq * m.c.batch * m.c.input);
  g.dw = v.scratch(4 * H * m.c.input), g.dr = v.scratch(4 * H * H), g.db = v.scratch(8 * H);
  if (C *ds = v.out(3)) g.dh0 = ds, g.dc0 = ds + BH;
  C *dweights = v.out(1), *dbiases = v.out(2);
  C *ws = v.scratch(rnnWorkspaceSize(m.c, true));
  prog.add([m, g, st, ws, dweights, dbiases] {
    st->toFloat();
    m.convert();
    rnnBackward(m.c, m.t, g, ws);
    gcLstmFromOnnx(m.c, g.dw, g.dr, g.db, dweights, dbiases);
    st->fromFloat();
  });
}

using RnnGrowFn = void (*)(const popx::Opx &, popx::Sequence &);

template <RnnGrowFn F32, RnnGrowFn F64> class RnnOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const DataType t = inInfo(0).dataType();
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE)
      throw error("input X has type {}, expected FLOAT, FLOAT16 or DOUBLE", inInfo(0).data_type());
    (t == DataType::DOUBLE ? F64 : F32)(*this, prog);
  }
};

using OnnxRnnOpx = RnnOpx<growOnnxRnn<float>, growOnnxRnn<double>>;
using OnnxRnnGradOpx = RnnOpx<growOnnxRnnGrad<float>, growOnnxRnnGrad<double>>;
using GcLstmOpx = RnnOpx<growGcLstm<float>, growGcLstm<double>>;
using GcLstmGradOpx = RnnOpx<growGcLstmGrad<float>, growGcLstmGrad<double>>;

} // namespace
static popx::OpxCreator<OnnxRnnOpx> rnnOpxCreator({onnxOp("RNN"), onnxOp("GRU"), onnxOp("LSTM")});
static popx::OpxCreator<OnnxRnnGradOpx> rnnGradOpxCreator({internalOp("RNNGrad"), internalOp("GRUGrad"),
                                                             internalOp("LSTMGrad")});
static popx::OpxCreator<GcLstmOpx> gcLstmOpxCreator(graphcoreOp("LSTM"));
static popx::OpxCreator<GcLstmGradOpx> gcLstmGradOpxCreator(internalOp("PopartLSTMGrad"));
} // namespace popart::cpu
