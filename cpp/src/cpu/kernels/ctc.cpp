// Ctc loss: per sample, log-space alpha (forward) and beta (backward) over the extended label
// sequence l' = (blank, l_1, blank, ..., l_S, blank); loss = -logsumexp(alpha_{T-1}(L-1), alpha_{T-1}(L-2));
// d loss / d lp[t, c] = -exp(logsum_{s: l'_s = c} (alpha_t(s) + beta_t(s)) - lp[t, c] + loss). Computed in
// float (FLOAT16 read and written through float), alpha/beta in scratch planned at grow().
// CtcGrad: dLp[t, n, c] = g[t, n, c] * dLoss scaled by the reduction. CtcBeamSearchDecoder: prefix beam
// search (blank / non-blank ending probabilities per prefix) with prefixes in a prefix tree.
#include "ops/loss_reduction.hpp"
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace popart::cpu {
namespace {

constexpr float kCtcNegInf = -std::numeric_limits<float>::infinity();

inline float ctcLogAdd(float a, float b) {
  if (a == kCtcNegInf) return b;
  if (b == kCtcNegInf) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

/// Integer input i as int64 values (UINT32, INT32 or INT64).
int64_t ctcIndexAt(const popx::TensorView &v, int64_t i) {
  switch (v.dtype()) {
  case DataType::UINT32: return v.data<uint32_t>()[i];
  case DataType::INT32: return v.data<int32_t>()[i];
  default: return v.data<int64_t>()[i];
  }
}

/// Sizes and data of one Ctc run; lp and g are [T, N, C].
struct CtcProblem {
  int64_t T = 0, N = 0, C = 0, S = 0, blank = 0;
  bool zeroInfinity = false;
  popx::TensorView lp, targets, inLens, tgtLens, loss, grad, alpha, beta, perSample;

  /// Checks every sample's lengths and labels (before the parallel part: workers must not throw).
  void validate() const {
    for (int64_t n = 0; n < N; ++n) {
      const int64_t len = ctcIndexAt(inLens, n), tl = ctcIndexAt(tgtLens, n);
      if (len < 0 || len > T) throw error("Ctc: input length {} of sample {} is outside [0, {}]", len, n, T);
      if (tl < 0 || tl > S) throw error("Ctc: target length {} of sample {} is outside [0, {}]", tl, n, S);
      for (int64_t s = 0; s < tl; ++s) {
        int64_t c = ctcIndexAt(targets, n * S + s);
        if (c < 0 || c >= C || c == blank)
          throw error("Ctc: target {} of sample {} is {}, expected a class in [0, {}) other than blank {}", s, n, c,
                      C, blank);
      }
    }
  }
};

template <class In, class Out> class CtcSample {
public:
  CtcSample(const CtcProblem &p, int64_t n) : p_(p), n_(n) {}

  /// Writes g[:, n, :] and returns loss_n (a validated sample).
  float run() {
    const int64_t len = ctcIndexAt(p_.inLens, n_), tl = ctcIndexAt(p_.tgtLens, n_);
    L_ = 2 * tl + 1;
    a_ = p_.alpha.data<float>() + n_ * p_.T * (2 * p_.S + 1);
    b_ = p_.beta.data<float>() + n_ * p_.T * (2 * p_.S + 1);
    Out *g = p_.grad.data<Out>();
    for (int64_t t = 0; t < p_.T; ++t)
      for (int64_t c = 0; c < p_.C; ++c) g[(t * p_.N + n_) * p_.C + c] = Out(0);
    if (len == 0) return tl == 0 || p_.zeroInfinity ? 0.f : std::numeric_limits<float>::infinity();
    forward(len);
    float nll = -ctcLogAdd(a_[(len - 1) * L_ + L_ - 1], L_ > 1 ? a_[(len - 1) * L_ + L_ - 2] : kCtcNegInf);
    if (std::isinf(nll)) return p_.zeroInfinity ? 0.f : nll;
    backward(len);
    gradient(len, nll, g);
    return nll;
  }

private:
  float lp(int64_t t, int64_t c) const { return float(p_.lp.data<In>()[(t * p_.N + n_) * p_.C + c]); }
  int64_t label(int64_t s) const { return s % 2 ? ctcIndexAt(p_.targets, n_ * p_.S + s / 2) : p_.blank; }
  /// s may take the transition from s - 2 (skipping a blank between different labels).
  bool skips(int64_t s) const { return s % 2 && s >= 2 && label(s) != label(s - 2); }

  void forward(int64_t len) {
    for (int64_t s = 0; s < L_; ++s) a_[s] = s < 2 ? lp(0, label(s)) : kCtcNegInf;
    for (int64_t t = 1; t < len; ++t)
      for (int64_t s = 0; s < L_; ++s) {
        const float *prev = a_ + (t - 1) * L_;
        float v = prev[s];
        if (s >= 1) v = ctcLogAdd(v, prev[s - 1]);
        if (skips(s)) v = ctcLogAdd(v, prev[s - 2]);
        a_[t * L_ + s] = v == kCtcNegInf ? v : v + lp(t, label(s));
      }
  }

  void backward(int64_t len) {
    float *last = b_ + (len - 1) * L_;
    for (int64_t s = 0; s < L_; ++s) last[s] = s >= L_ - 2 ? lp(len - 1, label(s)) : kCtcNegInf;
    for (int64_t t = len - 2; t >= 0; --t)
      for (int64_t s = 0; s < L_; ++s) {
        const float *next = b_ + (t + 1) * L_;
        float v = next[s];
        if (s + 1 < L_) v = ctcLogAdd(v, next[s + 1]);
        if (s + 2 < L_ && skips(s + 2)) v = ctcLogAdd(v, next[s + 2]);
        b_[t * L_ + s] = v == kCtcNegInf ? v : v + lp(t, label(s));
      }
  }

  void gradient(int64_t len, float nll, Out *g) {
    for (int64_t t = 0; t < len; ++t) {
      Out *gt = g + (t * p_.N + n_) * p_.C;
      float *acc = b_ + t * L_;  // beta_t is no longer needed after this row: reuse it for alpha + beta
      for (int64_t s = 0; s < L_; ++s) acc[s] += a_[t * L_ + s];
      for (int64_t s = 0; s < L_; ++s) {
        const int64_t c = label(s);
        float ab = acc[s];
        for (int64_t r = s + 1; r < L_; ++r)  // each class once: gather its later occurrences
          if (label(r) == c && acc[r] != kCtcNegInf) ab = ctcLogAdd(ab, acc[r]), acc[r] = kCtcNegInf;
        if (ab != kCtcNegInf) gt[c] = Out(float(gt[c]) - std::exp(ab - lp(t, c) + nll));
      }
    }
  }

  const CtcProblem &p_;
  int64_t n_, L_ = 1;
  float *a_ = nullptr, *b_ = nullptr;
};

template <class In, class Out> void ctcRun(const CtcProblem &p, int64_t reduction) {
  p.validate();
  float *losses = p.perSample.data<float>();
  popx::Opx::parallelFor(p.N, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) losses[n] = CtcSample<In, Out>(p, n).run();
  }, 1);
  Out *out = p.loss.data<Out>();
  if (reduction == 2) {
    for (int64_t n = 0; n < p.N; ++n) out[n] = Out(losses[n]);
    return;
  }
  double total = 0;
  for (int64_t n = 0; n < p.N; ++n)
    total += reduction == 1 ? losses[n] / double(std::max<int64_t>(1, ctcIndexAt(p.tgtLens, n))) : losses[n];
  out[0] = Out(reduction == 1 && p.N ? total / double(p.N) : total);
}

class CtcOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    CtcProblem p;
    p.T = inShape(0)[0], p.N = inShape(0)[1], p.C = inShape(0)[2], p.S = inShape(1)[1];
    p.blank = op_p->attr<Attributes::Int>("blank", 0);
    p.zeroInfinity = op_p->attr<Attributes::Int>("zeroInfinity", 0) != 0;
    p.lp = getInTensor(0), p.targets = getInTensor(1), p.inLens = getInTensor(2), p.tgtLens = getInTensor(3);
    p.loss = getOutTensor(0);
    p.grad = hasOutput(1) ? getOutTensor(1) : createTensor(outInfo(1));
    Shape scratch{std::max<int64_t>(1, p.N * p.T * (2 * p.S + 1))};
    p.alpha = createTensor(TensorInfo(DataType::FLOAT, scratch));
    p.beta = createTensor(TensorInfo(DataType::FLOAT, scratch));
    p.perSample = createTensor(TensorInfo(DataType::FLOAT, {std::max<int64_t>(1, p.N)}));
    int64_t reduction = lossReduction(*op_p);
    bool halfIn = inInfo(0).dataType() == DataType::FLOAT16, halfOut = outInfo(0).dataType() == DataType::FLOAT16;
    if (!halfIn && !halfOut) prog.add([p, reduction] { ctcRun<float, float>(p, reduction); });
    else if (!halfIn) prog.add([p, reduction] { ctcRun<float, float16_t>(p, reduction); });
    else if (!halfOut) prog.add([p, reduction] { ctcRun<float16_t, float>(p, reduction); });
    else prog.add([p, reduction] { ctcRun<float16_t, float16_t>(p, reduction); });
  }
};

/// dLp = g * scale_n: dLoss[n] (no reduction), dLoss (Sum), dLoss / (N max(targetLength_n, 1)) (Mean).
class CtcGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView g = getInTensor(0), tgtLens = getInTensor(1), dl = getInTensor(2), dx = getOutTensor(0);
    int64_t reduction = lossReduction(*op_p);
    dispatchFloat(g.dtype(), [&](auto gTag) {
      dispatchFloat(dx.dtype(), [&](auto xTag) {
        using G = decltype(gTag);
        using X = decltype(xTag);
        prog.add([=] { run<G, X>(g, tgtLens, dl, dx, reduction); });
      });
    });
  }

private:
  template <class G, class X>
  static void run(const popx::TensorView &g, const popx::TensorView &tgtLens, const popx::TensorView &dl,
                  const popx::TensorView &dx, int64_t reduction) {
    const int64_t N = g.shape()[1], C = g.shape()[2];
    const G *gp = g.data<G>(), *dlp = dl.data<G>();
    X *out = dx.data<X>();
    popx::Opx::parallelFor(g.shape()[0] * N, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t n = r % N;
        float scale = reduction == 2 ? float(dlp[n]) : float(dlp[0]);
        if (reduction == 1) scale /= float(N * std::max<int64_t>(1, ctcIndexAt(tgtLens, n)));
        for (int64_t c = 0; c < C; ++c) out[r * C + c] = X(float(gp[r * C + c]) * scale);
      }
    }, 64);
  }
};

/// Prefix beam search of one sample. A prefix is a node of a tree whose children are made once
/// per (parent, label), so equal prefixes are one node; each beam holds the log-probabilities of
/// its prefix ending in a blank (pb) or in its last label (pnb). Storage is reused across runs.
class CtcBeamSearch {
public:
  struct Beam {
    int32_t node;
    float pb, pnb;
    float score() const { return ctcLogAdd(pb, pnb); }
  };

  /// Searches lp[t * stride + c] for t < len; beams() are then sorted, most likely first.
  template <class T> void run(const T *lp, int64_t stride, int64_t len, int64_t classes, int64_t blank, int64_t width) {
    nodes_.assign(1, Node{-1, -1, -1, -1, 0});
    slot_.assign(1, -1);
    beams_.assign(1, Beam{0, 0.f, kCtcNegInf});
    for (int64_t t = 0; t < len; ++t, lp += stride) {
      cands_.clear();
      for (const Beam &b : beams_) extend(b, lp, classes, blank);
      for (const Beam &c : cands_) slot_[c.node] = -1;
      const size_t keep = std::min<size_t>(static_cast<size_t>(width), cands_.size());
      std::partial_sort(cands_.begin(), cands_.begin() + keep, cands_.end(), better);
      beams_.assign(cands_.begin(), cands_.begin() + keep);
    }
    std::sort(beams_.begin(), beams_.end(), better);
  }
  const std::vector<Beam> &beams() const { return beams_; }
  int32_t length(int32_t node) const { return nodes_[node].length; }
  /// Writes the labels of `node`'s prefix to out[0, length).
  void labels(int32_t node, uint32_t *out) const {
    for (int32_t k = node; k > 0; k = nodes_[k].parent)
      out[nodes_[k].length - 1] = static_cast<uint32_t>(nodes_[k].label);
  }

private:
  struct Node {
    int32_t parent, label, child, sibling, length;  // child: first child; sibling: next child of parent
  };
  static bool better(const Beam &a, const Beam &b) {
    float sa = a.score(), sb = b.score();
    return sa > sb || (sa == sb && a.node < b.node);
  }

  template <class T> void extend(const Beam &b, const T *lp, int64_t classes, int64_t blank) {
    const float total = b.score();
    const int32_t last = nodes_[b.node].label;
    size_t self = candidate(b.node);
    cands_[self].pb = ctcLogAdd(cands_[self].pb, total + float(lp[blank]));
    if (b.node != 0) cands_[self].pnb = ctcLogAdd(cands_[self].pnb, b.pnb + float(lp[last]));
    for (int64_t c = 0; c < classes; ++c) {
      if (c == blank) continue;
      size_t k = candidate(child(b.node, static_cast<int32_t>(c)));
      float from = c == last ? b.pb : total;  // a repeated label needs a blank in between
      cands_[k].pnb = ctcLogAdd(cands_[k].pnb, from + float(lp[c]));
    }
  }

  int32_t child(int32_t parent, int32_t label) {
    for (int32_t k = nodes_[parent].child; k >= 0; k = nodes_[k].sibling)
      if (nodes_[k].label == label) return k;
    nodes_.push_back(Node{parent, label, -1, nodes_[parent].child, nodes_[parent].length + 1});
    slot_.push_back(-1);
    return nodes_[parent].child = static_cast<int32_t>(nodes_.size() - 1);
  }

  size_t candidate(int32_t node) {
    if (slot_[node] < 0) {
      slot_[node] = static_cast<int32_t>(cands_.size());
      cands_.push_back(Beam{node, kCtcNegInf, kCtcNegInf});
    }
    return static_cast<size_t>(slot_[node]);
  }

  std::vector<Node> nodes_;
  std::vector<int32_t> slot_;  // per node: its index in cands_, or -1
  std::vector<Beam> cands_, beams_;
};

/// Outputs per sample n: log-probabilities [N, P], lengths [N, P], labels [N, P, T] (0 past the length).
class CtcBeamSearchDecoderOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView lp = getInTensor(0), lens = getInTensor(1);
    popx::TensorView probs = getOutTensor(0), lengths = getOutTensor(1), labels = getOutTensor(2);
    const Op &op = *op_p;
    const int64_t blank = op.attr<Attributes::Int>("blank", 0), width = op.attr<Attributes::Int>("beam_width", 100);
    dispatchFloat(lp.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] { run<T>(lp, lens, probs, lengths, labels, blank, width); });
    });
  }

private:
  template <class T>
  static void run(const popx::TensorView &lp, const popx::TensorView &lens, const popx::TensorView &probs,
                  const popx::TensorView &lengths, const popx::TensorView &labels, int64_t blank, int64_t width) {
    const int64_t T_ = lp.shape()[0], N = lp.shape()[1], C = lp.shape()[2], P = probs.shape()[1];
    for (int64_t n = 0; n < N; ++n)
      if (ctcIndexAt(lens, n) < 0 || ctcIndexAt(lens, n) > T_)
        throw error("CtcBeamSearchDecoder: data length {} of sample {} is outside [0, {}]", ctcIndexAt(lens, n), n, T_);
    std::fill(labels.data<uint32_t>(), labels.data<uint32_t>() + labels.nelms(), 0u);
    popx::Opx::parallelFor(N, [&](int64_t b, int64_t e) {
      thread_local CtcBeamSearch search;
      for (int64_t n = b; n < e; ++n) {
        search.run(lp.data<T>() + n * C, N * C, ctcIndexAt(lens, n), C, blank, width);
        const auto &beams = search.beams();
        for (int64_t p = 0; p < P; ++p) {
          const bool found = p < static_cast<int64_t>(beams.size());
          probs.data<T>()[n * P + p] = T(found ? beams[p].score() : kCtcNegInf);
          lengths.data<uint32_t>()[n * P + p] = found ? static_cast<uint32_t>(search.length(beams[p].node)) : 0u;
          if (found) search.labels(beams[p].node, labels.data<uint32_t>() + (n * P + p) * T_);
        }
      }
    }, 1);
  }
};

} // namespace
static popx::OpxCreator<CtcOpx> POPART_UNIQUE_NAME(ctcOpxCreator_)(graphcoreOp("Ctc"));
static popx::OpxCreator<CtcGradOpx> POPART_UNIQUE_NAME(ctcOpxCreator_)(internalOp("CtcGrad"));
static popx::OpxCreator<CtcBeamSearchDecoderOpx> POPART_UNIQUE_NAME(ctcOpxCreator_)(
    graphcoreOp("CtcBeamSearchDecoder"));
} // namespace popart::cpu
