// The recurrent-cell engine behind the RNN/GRU/LSTM kernels: plain loops and small GEMMs in the compute
// type C (float or double) over ONNX-layout weights. The caller owns every buffer, the workspace included
// (sized by rnnWorkspaceSize and allocated once at grow()), so a run allocates nothing.
#pragma once
#include "ops/rnn.hpp"
#include <cstdint>

namespace popart::popx {
class Opx;
class Sequence;
} // namespace popart::popx

namespace popart::cpu {

template <class C> struct RnnTensors {
  const C *x = nullptr, *w = nullptr, *r = nullptr;                            // required
  const C *b = nullptr, *h0 = nullptr, *c0 = nullptr, *p = nullptr;            // optional (zeros)
  const int32_t *lens = nullptr;                                               // optional (all seq)
  C *y = nullptr, *yh = nullptr, *yc = nullptr;                                // optional outputs
};

/// Gradients: dx, dw, dr, db are required; dh0, dc0, dp may be null (not wanted); dy, dyh, dyc may be
/// null (zero). Every wanted gradient is fully written.
template <class C> struct RnnGrads {
  const C *dy = nullptr, *dyh = nullptr, *dyc = nullptr;
  C *dx = nullptr, *dw = nullptr, *dr = nullptr, *db = nullptr, *dh0 = nullptr, *dc0 = nullptr, *dp = nullptr;
};

/// Elements of C the workspace needs (forward only, or forward with trace plus backward).
int64_t rnnWorkspaceSize(const RnnConfig &c, bool training);

template <class C> void rnnForward(const RnnConfig &c, const RnnTensors<C> &t, C *workspace);
template <class C> void rnnBackward(const RnnConfig &c, const RnnTensors<C> &t, const RnnGrads<C> &g, C *workspace);

/// Appends the forward of an ai.onnx RNN/GRU/LSTM op on oneDNN's RNN primitives when they compute this
/// configuration (rnn_dnnl.cpp); false, with nothing appended, otherwise.
bool growRnnDnnl(const popx::Opx &opx, const RnnConfig &c, popx::Sequence &prog);

} // namespace popart::cpu
