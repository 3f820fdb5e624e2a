// RNN/GRU/LSTM cells over ONNX-layout weights, one direction at a time (formulas in ops/rnn.cpp).
// Forward: the inputs of a direction are gathered in step order (reverse directions and sequence_lens
// reorder each batch row), X W^T + biases is one GEMM, then each step adds H_{t-1} R^T (a GEMM over the
// batch) and applies the cell. Backward (BPTT) reruns the forward keeping every step's pre-activations and
// states, walks the steps backwards collecting the pre-activation gradients dA, then forms
// dW = dA^T X, dR = dA^T H_{t-1}, dX = dA W and the bias sums with GEMMs over all steps.
#include "rnn_engine.hpp"
#include "popart/error.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cmath>
#include <cstring>

namespace popart::cpu {
namespace {

template <class C> C rnnSigmoid(C x) { return C(1) / (C(1) + std::exp(-x)); }

template <class C> C rnnAct(const RnnActivation &a, C x) {
  const C al = C(a.alpha), be = C(a.beta);
  switch (a.kind) {
  case RnnAct::Relu: return x < 0 ? C(0) : x;  // NaN passes through, as numpy's maximum(x, 0)
  case RnnAct::Tanh: return std::tanh(x);
  case RnnAct::Sigmoid: return rnnSigmoid(x);
  case RnnAct::Affine: return al * x + be;
  case RnnAct::LeakyRelu: return x >= 0 ? x : al * x;
  case RnnAct::ThresholdedRelu: return x > al ? x : C(0);
  case RnnAct::ScaledTanh: return al * std::tanh(be * x);
  case RnnAct::HardSigmoid: return x != x ? x : std::max(C(0), std::min(C(1), al * x + be));  // NaN kept
  case RnnAct::Elu: return x >= 0 ? x : al * (std::exp(x) - C(1));
  case RnnAct::Softsign: return x / (C(1) + std::abs(x));
  case RnnAct::Softplus: return std::max(x, C(0)) + std::log1p(std::exp(-std::abs(x)));
  }
  return x;
}

// d act(x) / dx
template <class C> C rnnActGrad(const RnnActivation &a, C x) {
  const C al = C(a.alpha), be = C(a.beta);
  switch (a.kind) {
  case RnnAct::Relu: return x > 0 ? C(1) : C(0);
  case RnnAct::Tanh: { C y = std::tanh(x); return C(1) - y * y; }
  case RnnAct::Sigmoid: { C y = rnnSigmoid(x); return y * (C(1) - y); }
  case RnnAct::Affine: return al;
  case RnnAct::LeakyRelu: return x >= 0 ? C(1) : al;
  case RnnAct::ThresholdedRelu: return x > al ? C(1) : C(0);
  case RnnAct::ScaledTanh: { C y = std::tanh(be * x); return al * be * (C(1) - y * y); }
  case RnnAct::HardSigmoid: { C v = al * x + be; return v > 0 && v < 1 ? al : C(0); }
  case RnnAct::Elu: return x >= 0 ? C(1) : al * std::exp(x);
  case RnnAct::Softsign: { C d = C(1) + std::abs(x); return C(1) / (d * d); }
  case RnnAct::Softplus: return rnnSigmoid(x);
  }
  return C(1);
}

// out[m * ldo + n] = (acc ? out : 0) + sum_k A[m * as + k * ak] * B[k * bk + n * bn]. Dot products when both
// operands run along k contiguously, else (bn == 1) rows of B scaled and added, contiguous along n.
template <class C>
void rnnGemm(int64_t M, int64_t N, int64_t K, const C *A, int64_t as, int64_t ak, const C *B, int64_t bk, int64_t bn,
             C *out, int64_t ldo, bool acc) {
  if (ak == 1 && bk == 1) {
    popx::Opx::parallelFor(M * N, [=](int64_t lo, int64_t hi) {
      for (int64_t mn = lo; mn < hi; ++mn) {
        const int64_t m = mn / N, n = mn % N;
        const C *a = A + m * as, *b = B + n * bn;
        C s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t k = 0; k < K; ++k) s += a[k] * b[k];
        out[m * ldo + n] = acc ? out[m * ldo + n] + s : s;
      }
    }, std::max<int64_t>(1, 16384 / std::max<int64_t>(K, 1)));
    return;
  }
  if (bn != 1) throw internal_error("rnnGemm: B must be contiguous along n or A and B along k");
  popx::Opx::parallelFor(M, [=](int64_t lo, int64_t hi) {
    for (int64_t m = lo; m < hi; ++m) {
      C *o = out + m * ldo;
      if (!acc) std::fill_n(o, N, C(0));
      for (int64_t k = 0; k < K; ++k) {
        const C a = A[m * as + k * ak];
        if (a == C(0)) continue;
        const C *b = B + k * bk;
#pragma omp simd
        for (int64_t n = 0; n < N; ++n) o[n] += a * b[n];
      }
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(N * K, 1)));
}

struct RnnWorkspace {
  int64_t xs, xw, pre, hs, cs, q, da, drec, dh, dc, tmp, local, dxs, total;
};

RnnWorkspace rnnWorkspace(const RnnConfig &c, bool training) {
  const int64_t S = c.seq, B = c.batch, H = c.hidden, GH = c.gates() * H;
  const int64_t steps = training ? S : 1, states = training ? S + 1 : 2;
  RnnWorkspace w{};
  int64_t at = 0;
  auto take = [&](int64_t n) { int64_t o = at; at += n; return o; };
  w.xs = take(S * B * c.input), w.xw = take(S * B * GH), w.pre = take(steps * B * GH);
  w.hs = take(states * B * H), w.cs = take(states * B * H), w.q = take(steps * B * H);
  if (training) {
    w.da = take(S * B * GH), w.drec = take(S * B * GH), w.dh = take(B * H), w.dc = take(B * H);
    w.tmp = take(B * GH), w.local = take(B * H), w.dxs = take(S * B * c.input);
  }
  w.total = at;
  return w;
}

/// One direction: its weights, the workspace views and the index maps.
template <class C> struct RnnDir {
  const RnnConfig &c;
  int64_t d;
  bool full;  // keep every step (training) rather than the last two states
  const C *w, *r, *wb, *rb, *p;
  const int32_t *lens;
  C *xs, *xw, *pre, *hs, *cs, *q;
  int64_t S, B, H, GH;

  RnnDir(const RnnConfig &cfg, int64_t dir, bool training, const RnnTensors<C> &t, C *ws, const RnnWorkspace &l)
      : c(cfg), d(dir), full(training), lens(t.lens), S(cfg.seq), B(cfg.batch), H(cfg.hidden),
        GH(cfg.gates() * cfg.hidden) {
    w = t.w + d * GH * c.input, r = t.r + d * GH * H;
    wb = t.b ? t.b + d * 2 * GH : nullptr, rb = t.b ? wb + GH : nullptr;
    p = t.p ? t.p + d * 3 * H : nullptr;
    xs = ws + l.xs, xw = ws + l.xw, pre = ws + l.pre, hs = ws + l.hs, cs = ws + l.cs, q = ws + l.q;
  }
  int64_t len(int64_t b) const { return lens ? std::clamp<int64_t>(lens[b], 0, S) : S; }
  int64_t timeOf(int64_t b, int64_t s) const { return c.reversed(d) ? len(b) - 1 - s : s; }
  int64_t xOff(int64_t t, int64_t b) const { return (c.batchMajor ? b * S + t : t * B + b) * c.input; }
  int64_t yOff(int64_t t, int64_t b) const {
    return (c.batchMajor ? (b * S + t) * c.dirs + d : (t * c.dirs + d) * B + b) * H;
  }
  int64_t stateOff(int64_t b) const { return (c.batchMajor ? b * c.dirs + d : d * B + b) * H; }
  C *preAt(int64_t s) const { return pre + (full ? s : 0) * B * GH; }
  C *qAt(int64_t s) const { return q + (full ? s : 0) * B * H; }
  C *hAt(int64_t k) const { return hs + (full ? k : k % 2) * B * H; }  // the state before step k
  C *cAt(int64_t k) const { return cs + (full ? k : k % 2) * B * H; }
  const RnnActivation &act(int i) const { return c.acts[d * c.numActs() + i]; }
  C clip(C v) const { return c.hasClip ? std::clamp(v, C(-c.clip), C(c.clip)) : v; }
  C mask(C v) const { return !c.hasClip || std::abs(v) <= C(c.clip) ? C(1) : C(0); }
  bool gruSplit() const { return c.cell == RnnCell::Gru && !c.linearBeforeReset; }
};

template <class C> void rnnLoadState(const RnnDir<C> &k, const C *src, C *dst) {
  for (int64_t b = 0; b < k.B; ++b)
    for (int64_t j = 0; j < k.H; ++j) dst[b * k.H + j] = src ? src[k.stateOff(b) + j] : C(0);
}

// xs[s, b] = X[time of step s, b] (zero past the row's length); xw = xs W^T + Wb + Rb (GRU lbr: no Rb_h).
template <class C> void rnnInputProjection(const RnnDir<C> &k, const C *x) {
  const int64_t I = k.c.input;
  for (int64_t s = 0; s < k.S; ++s)
    for (int64_t b = 0; b < k.B; ++b) {
      C *dst = k.xs + (s * k.B + b) * I;
      if (s < k.len(b)) std::memcpy(dst, x + k.xOff(k.timeOf(b, s), b), sizeof(C) * I);
      else std::fill(dst, dst + I, C(0));
    }
  rnnGemm<C>(k.S * k.B, k.GH, I, k.xs, I, 1, k.w, 1, I, k.xw, k.GH, false);
  if (!k.wb) return;
  const int64_t rbEnd = k.c.cell == RnnCell::Gru && k.c.linearBeforeReset ? 2 * k.H : k.GH;
  popx::Opx::parallelFor(k.S * k.B, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row)
      for (int64_t g = 0; g < k.GH; ++g) k.xw[row * k.GH + g] += k.wb[g] + (g < rbEnd ? k.rb[g] : C(0));
  }, std::max<int64_t>(1, 4096 / k.GH));
}

// One valid row of step s; pre holds H_{t-1} R^T (GRU without lbr: only the z, r blocks so far).
template <class C>
void rnnCellForward(const RnnDir<C> &k, const C *xw, C *pre, const C *hp, C *hn, const C *cp, C *cn, C *q) {
  const int64_t H = k.H;
  if (k.c.cell == RnnCell::Rnn) {
    for (int64_t j = 0; j < H; ++j) hn[j] = rnnAct(k.act(0), k.clip(pre[j] += xw[j]));
  } else if (k.c.cell == RnnCell::Lstm) {
    for (int64_t j = 0; j < H; ++j) {
      const C c0 = cp[j];
      C &ai = pre[j], &ao = pre[H + j], &af = pre[2 * H + j], &ac = pre[3 * H + j];
      ai += xw[j] + (k.p ? k.p[j] * c0 : C(0));
      af += xw[2 * H + j] + (k.p ? k.p[2 * H + j] * c0 : C(0));
      ac += xw[3 * H + j];
      const C i = rnnAct(k.act(0), k.clip(ai));
      const C f = k.c.inputForget ? C(1) - i : rnnAct(k.act(0), k.clip(af));
      const C c1 = f * c0 + i * rnnAct(k.act(1), k.clip(ac));
      cn[j] = c1;
      ao += xw[H + j] + (k.p ? k.p[H + j] * c1 : C(0));
      hn[j] = rnnAct(k.act(0), k.clip(ao)) * rnnAct(k.act(2), c1);
    }
  } else {  // GRU: q = H_{t-1} R_h^T + Rb_h (lbr), or r . H_{t-1} whose product with R_h^T is already in pre
    for (int64_t j = 0; j < H; ++j) {
      const C z = rnnAct(k.act(0), k.clip(pre[j] += xw[j]));
      const C r = rnnAct(k.act(0), k.clip(pre[H + j] += xw[H + j]));
      C &ah = pre[2 * H + j];
      if (k.c.linearBeforeReset) ah = xw[2 * H + j] + r * (q[j] = ah + (k.rb ? k.rb[2 * H + j] : C(0)));
      else ah += xw[2 * H + j];
      hn[j] = (C(1) - z) * rnnAct(k.act(1), k.clip(ah)) + z * hp[j];
    }
  }
}

template <class C> void rnnGruResetProducts(const RnnDir<C> &k, int64_t s, const C *pre, const C *hp, C *q) {
  for (int64_t b = 0; b < k.B; ++b) {
    const C *ar = pre + b * k.GH + k.H, *xr = k.xw + (s * k.B + b) * k.GH + k.H;
    for (int64_t j = 0; j < k.H; ++j)
      q[b * k.H + j] = s < k.len(b) ? rnnAct(k.act(0), k.clip(ar[j] + xr[j])) * hp[b * k.H + j] : C(0);
  }
}

template <class C> void rnnDirForward(const RnnDir<C> &k, const RnnTensors<C> &t) {
  const int64_t H = k.H, GH = k.GH, B = k.B;
  rnnInputProjection(k, t.x);
  rnnLoadState(k, t.h0, k.hAt(0));
  rnnLoadState(k, t.c0, k.cAt(0));
  for (int64_t s = 0; s < k.S; ++s) {
    C *pre = k.preAt(s), *hp = k.hAt(s), *hn = k.hAt(s + 1), *cp = k.cAt(s), *cn = k.cAt(s + 1), *q = k.qAt(s);
    rnnGemm<C>(B, k.gruSplit() ? 2 * H : GH, H, hp, H, 1, k.r, 1, H, pre, GH, false);
    if (k.gruSplit()) {  // (r . H_{t-1}) R_h^T needs r first
      rnnGruResetProducts(k, s, pre, hp, q);
      rnnGemm<C>(B, H, H, q, H, 1, k.r + 2 * H * H, 1, H, pre + 2 * H, GH, false);
    }
    for (int64_t b = 0; b < B; ++b) {
      if (s >= k.len(b)) {  // finished rows keep their state
        std::memcpy(hn + b * H, hp + b * H, sizeof(C) * H);
        std::memcpy(cn + b * H, cp + b * H, sizeof(C) * H);
        continue;
      }
      rnnCellForward(k, k.xw + (s * B + b) * GH, pre + b * GH, hp + b * H, hn + b * H, cp + b * H, cn + b * H,
                     q + b * H);
      if (t.y) std::memcpy(t.y + k.yOff(k.timeOf(b, s), b), hn + b * H, sizeof(C) * H);
    }
  }
  for (int64_t b = 0; b < B; ++b) {
    if (t.y)
      for (int64_t tt = k.len(b); tt < k.S; ++tt) std::fill_n(t.y + k.yOff(tt, b), H, C(0));
    if (t.yh) std::memcpy(t.yh + k.stateOff(b), k.hAt(k.S) + b * H, sizeof(C) * H);
    if (t.yc) std::memcpy(t.yc + k.stateOff(b), k.cAt(k.S) + b * H, sizeof(C) * H);
  }
}

// Pre-activation gradients of one valid row of step s from dH (dy added) and dC; writes dA, the gradient
// seen by R (drec: differs from dA only in GRU's h block), the local part of dH_{t-1} and updates dC, dP.
template <class C>
void rnnCellBackward(const RnnDir<C> &k, const C *pre, const C *hp, const C *cp, const C *cn, const C *q, const C *dh,
                     C *dc, C *da, C *drec, C *local, C *dp) {
  const int64_t H = k.H;
  const auto &fa = k.act(0);
  if (k.c.cell == RnnCell::Rnn) {
    for (int64_t j = 0; j < H; ++j) da[j] = dh[j] * rnnActGrad(fa, k.clip(pre[j])) * k.mask(pre[j]), local[j] = 0;
  } else if (k.c.cell == RnnCell::Lstm) {
    for (int64_t j = 0; j < H; ++j) {
      const C ai = pre[j], ao = pre[H + j], af = pre[2 * H + j], ac = pre[3 * H + j], c0 = cp[j], c1 = cn[j];
      const C i = rnnAct(fa, k.clip(ai)), o = rnnAct(fa, k.clip(ao));
      const C f = k.c.inputForget ? C(1) - i : rnnAct(fa, k.clip(af)), cc = rnnAct(k.act(1), k.clip(ac));
      const C dao = dh[j] * rnnAct(k.act(2), c1) * rnnActGrad(fa, k.clip(ao)) * k.mask(ao);
      const C dct = dc[j] + dh[j] * o * rnnActGrad(k.act(2), c1) + (k.p ? dao * k.p[H + j] : C(0));
      C di = dct * cc, df = dct * c0;
      if (k.c.inputForget) di -= df;
      const C dai = di * rnnActGrad(fa, k.clip(ai)) * k.mask(ai);
      const C daf = k.c.inputForget ? C(0) : df * rnnActGrad(fa, k.clip(af)) * k.mask(af);
      const C dac = dct * i * rnnActGrad(k.act(1), k.clip(ac)) * k.mask(ac);
      dc[j] = dct * f + (k.p ? dai * k.p[j] + daf * k.p[2 * H + j] : C(0));
      if (dp) dp[j] += dai * c0, dp[H + j] += dao * c1, dp[2 * H + j] += daf * c0;
      da[j] = dai, da[H + j] = dao, da[2 * H + j] = daf, da[3 * H + j] = dac;
      local[j] = 0;
    }
  } else {
    for (int64_t j = 0; j < H; ++j) {
      const C az = pre[j], ar = pre[H + j], ah = pre[2 * H + j];
      const C z = rnnAct(fa, k.clip(az)), hh = rnnAct(k.act(1), k.clip(ah));
      const C dah = dh[j] * (C(1) - z) * rnnActGrad(k.act(1), k.clip(ah)) * k.mask(ah);
      da[j] = drec[j] = dh[j] * (hp[j] - hh) * rnnActGrad(fa, k.clip(az)) * k.mask(az);
      da[2 * H + j] = drec[2 * H + j] = dah;
      local[j] = dh[j] * z;
      if (!k.c.linearBeforeReset) continue;  // dr needs dah R_h: see rnnGruResetGrad
      const C r = rnnAct(fa, k.clip(ar));
      da[H + j] = drec[H + j] = dah * q[j] * rnnActGrad(fa, k.clip(ar)) * k.mask(ar);
      drec[2 * H + j] = dah * r;
    }
  }
}

// GRU without lbr: with dq = dA_h R_h (in tmp), dr = dq . H_{t-1} and dH_{t-1} gains dq . r.
template <class C> void rnnGruResetGrad(const RnnDir<C> &k, int64_t s, const C *tmp, C *da, C *drec, C *local) {
  const int64_t H = k.H;
  const C *pre = k.preAt(s), *hp = k.hAt(s);
  for (int64_t b = 0; b < k.B; ++b) {
    if (s >= k.len(b)) continue;
    for (int64_t j = 0; j < H; ++j) {
      const C ar = pre[b * k.GH + H + j], r = rnnAct(k.act(0), k.clip(ar)), dq = tmp[b * H + j];
      const C dar = dq * hp[b * H + j] * rnnActGrad(k.act(0), k.clip(ar)) * k.mask(ar);
      da[b * k.GH + H + j] = drec[b * k.GH + H + j] = dar;
      local[b * H + j] += dq * r;
    }
  }
}

// Steps backwards: fills dA (ws.da) and drec for every step and leaves dH_0, dC_0 in dh, dc.
template <class C>
void rnnDirSteps(const RnnDir<C> &k, const RnnGrads<C> &g, C *da, C *drec, C *dh, C *dc, C *tmp, C *local, C *dp) {
  const int64_t H = k.H, GH = k.GH, B = k.B;
  rnnLoadState(k, g.dyh, dh);
  rnnLoadState(k, g.dyc, dc);
  for (int64_t s = k.S - 1; s >= 0; --s) {
    C *das = da + s * B * GH, *drs = drec + s * B * GH;
    for (int64_t b = 0; b < B; ++b) {
      C *dhb = dh + b * H;
      if (s >= k.len(b)) {  // past the row's end: the state passes through
        std::fill_n(das + b * GH, GH, C(0));
        std::fill_n(drs + b * GH, GH, C(0));
        std::memcpy(local + b * H, dhb, sizeof(C) * H);
        continue;
      }
      if (g.dy)
        for (int64_t j = 0; j < H; ++j) dhb[j] += g.dy[k.yOff(k.timeOf(b, s), b) + j];
      rnnCellBackward(k, k.preAt(s) + b * GH, k.hAt(s) + b * H, k.cAt(s) + b * H, k.cAt(s + 1) + b * H,
                      k.qAt(s) + b * H, dhb, dc + b * H, das + b * GH, drs + b * GH, local + b * H, dp);
    }
    int64_t recCols = GH;
    if (k.gruSplit()) {
      rnnGemm<C>(B, H, H, das + 2 * H, GH, 1, k.r + 2 * H * H, H, 1, tmp, H, false);
      rnnGruResetGrad(k, s, tmp, das, drs, local);
      recCols = 2 * H;
    }
    rnnGemm<C>(B, H, recCols, drs, GH, 1, k.r, H, 1, tmp, H, false);
    for (int64_t i = 0; i < B * H; ++i) dh[i] = tmp[i] + local[i];
  }
}

template <class C> void rnnDirBackward(const RnnDir<C> &k, const RnnTensors<C> &t, const RnnGrads<C> &g, C *ws,
                                       const RnnWorkspace &l) {
  const int64_t H = k.H, GH = k.GH, I = k.c.input, rows = k.S * k.B, d = k.d;
  rnnDirForward(k, t);
  C *da = ws + l.da, *drec = k.c.cell == RnnCell::Gru ? ws + l.drec : da, *dh = ws + l.dh, *dc = ws + l.dc;
  C *dp = g.dp && k.p ? g.dp + d * 3 * H : nullptr;
  rnnDirSteps(k, g, da, drec, dh, dc, ws + l.tmp, ws + l.local, dp);
  for (int64_t b = 0; b < k.B; ++b) {
    if (g.dh0) std::memcpy(g.dh0 + k.stateOff(b), dh + b * H, sizeof(C) * H);
    if (g.dc0) std::memcpy(g.dc0 + k.stateOff(b), dc + b * H, sizeof(C) * H);
  }
  rnnGemm<C>(GH, I, rows, da, 1, GH, k.xs, I, 1, g.dw + d * GH * I, I, false);
  C *dr = g.dr + d * GH * H;
  if (k.gruSplit()) {
    rnnGemm<C>(2 * H, H, rows, drec, 1, GH, k.hAt(0), H, 1, dr, H, false);
    rnnGemm<C>(H, H, rows, drec + 2 * H, 1, GH, k.q, H, 1, dr + 2 * H * H, H, false);
  } else {
    rnnGemm<C>(GH, H, rows, drec, 1, GH, k.hAt(0), H, 1, dr, H, false);
  }
  C *db = g.db + d * 2 * GH;
  for (int64_t j = 0; j < GH; ++j) {
    C sw = 0, sr = 0;
    for (int64_t row = 0; row < rows; ++row) sw += da[row * GH + j], sr += drec[row * GH + j];
    db[j] = sw, db[GH + j] = sr;
  }
  C *dxs = ws + l.dxs;
  rnnGemm<C>(rows, I, GH, da, GH, 1, k.w, I, 1, dxs, I, false);
  for (int64_t s = 0; s < k.S; ++s)
    for (int64_t b = 0; b < k.B; ++b)
      if (s < k.len(b)) {
        C *dst = g.dx + k.xOff(k.timeOf(b, s), b);
        for (int64_t i = 0; i < I; ++i) dst[i] += dxs[(s * k.B + b) * I + i];
      }
}

} // namespace

int64_t rnnWorkspaceSize(const RnnConfig &c, bool training) { return rnnWorkspace(c, training).total; }

template <class C> void rnnForward(const RnnConfig &c, const RnnTensors<C> &t, C *workspace) {
  const RnnWorkspace l = rnnWorkspace(c, false);
  for (int64_t d = 0; d < c.dirs; ++d) rnnDirForward(RnnDir<C>(c, d, false, t, workspace, l), t);
}

template <class C> void rnnBackward(const RnnConfig &c, const RnnTensors<C> &t, const RnnGrads<C> &g, C *workspace) {
  const RnnWorkspace l = rnnWorkspace(c, true);
  std::fill_n(g.dx, c.seq * c.batch * c.input, C(0));
  if (g.dp) std::fill_n(g.dp, c.dirs * 3 * c.hidden, C(0));
  for (int64_t d = 0; d < c.dirs; ++d) rnnDirBackward(RnnDir<C>(c, d, true, t, workspace, l), t, g, workspace, l);
}

template void rnnForward<float>(const RnnConfig &, const RnnTensors<float> &, float *);
template void rnnForward<double>(const RnnConfig &, const RnnTensors<double> &, double *);
template void rnnBackward<float>(const RnnConfig &, const RnnTensors<float> &, const RnnGrads<float> &, float *);
template void rnnBackward<double>(const RnnConfig &, const RnnTensors<double> &, const RnnGrads<double> &, double *);

} // namespace popart::cpu
