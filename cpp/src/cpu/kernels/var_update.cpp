// Kernels of the PopXL var-update ops (ops/var_update.hpp): Accumulate, SparseAccumulate,
// AccumulatorScale, AdamUpdater, AdamVarUpdate, LambSquare. Tensors may each have their own float
// type (mixed precision); arithmetic runs in double for DOUBLE accumulators/weights, else float,
// over chunks (varupdate_util.hpp). Hyper-parameters given as tensors are read at every run.
#include "ops/var_update.hpp"
#include "popart/adam.hpp"
#include "varupdate_util.hpp"
#include <cmath>
#include <cstring>
#include <limits>

namespace popart::cpu {
namespace {

using namespace varupdate;
using popx::TensorView;

double readScalar(const TensorView &v) {
  return dispatchFloat(v.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return double(compute_t<T>(*static_cast<const T *>(v.raw())));
  });
}

/// A hyper-parameter: its tensor's value at run time when the op has that input, else the attribute.
struct Hyper {
  TensorView t;
  double value = 0;
  double get() const { return t.raw() ? readScalar(t) : value; }
};

Hyper hyper(const popx::Opx &opx, InIndex i, const char *attribute, double dflt) {
  Hyper h;
  if (opx.hasInput(i)) h.t = opx.getInTensor(i);
  h.value = opx.op_p->attr<Attributes::Float>(attribute, static_cast<float>(dflt));
  return h;
}

// ---- Accumulate ----

template <class C> void accumulateChunk(AccumulationType type, C *a, const C *x, int64_t n, C f) {
  switch (type) {
  case AccumulationType::Add:
    for (int64_t i = 0; i < n; ++i) a[i] += x[i];
    break;
  case AccumulationType::DampenedAdd:
    for (int64_t i = 0; i < n; ++i) a[i] += f * x[i];
    break;
  case AccumulationType::DampenedAddSquare:
    for (int64_t i = 0; i < n; ++i) a[i] += f * x[i] * x[i];
    break;
  case AccumulationType::DecayAdd:
    for (int64_t i = 0; i < n; ++i) a[i] = f * a[i] + x[i];
    break;
  case AccumulationType::DecayAddSquare:
    for (int64_t i = 0; i < n; ++i) a[i] = f * a[i] + x[i] * x[i];
    break;
  case AccumulationType::MovingAverage:
    for (int64_t i = 0; i < n; ++i) a[i] = f * a[i] + (C(1) - f) * x[i];
    break;
  case AccumulationType::MovingAverageSquare:
    for (int64_t i = 0; i < n; ++i) a[i] = f * a[i] + (C(1) - f) * x[i] * x[i];
    break;
  case AccumulationType::Infinity:
    for (int64_t i = 0; i < n; ++i) a[i] = std::max(f * a[i], std::abs(x[i]));
    break;
  case AccumulationType::Mean: {
    const C keep = f / (f + C(1)), add = C(1) / (f + C(1));
    for (int64_t i = 0; i < n; ++i) a[i] = a[i] * keep + x[i] * add;
    break;
  }
  case AccumulationType::N: break;
  }
}

class AccumulateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto type = static_cast<AccumulationType>(op_p->attr<Attributes::Int>("type", 0));
    const TensorView a = getInTensor(accumulate::kAccum), x = getInTensor(accumulate::kUpdater);
    const Hyper f = hyper(*this, accumulate::kFactor, "factor", 1.0);
    prog.add([=] {
      const double fv = f.get();
      vu::dispatchCompute(a.dtype(), [&](auto tag) {
        using C = decltype(tag);
        vu::forChunks(a.nelms(), [&](int64_t o, int64_t k) {
          C ab[vu::kChunk], xb[vu::kChunk];
          C *pa = vu::view(a, o, k, ab);
          const C *px = vu::view(x, o, k, xb);
          accumulateChunk(type, pa, px, k, C(fv));
          vu::commit(a, o, k, pa);
        });
      });
    });
  }
};

// ---- SparseAccumulate: a viewed as [outer, rows, inner], x as [outer, J, inner]. ----

template <class I> void readIndices(const TensorView &v, std::vector<int64_t> &out) {
  const I *p = static_cast<const I *>(v.raw());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(p[i]);
}

class SparseAccumulateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const TensorView a = getInTensor(sparse::kAccum), x = getInTensor(sparse::kUpdater),
                     idx = getInTensor(sparse::kIndices);
    const bool dampened = op_p->attr<Attributes::Int>("type", 0) == static_cast<int64_t>(AccumulationType::DampenedAdd);
    const Hyper f = hyper(*this, sparse::kFactor, "factor", 1.0);
    const Shape &s = a.shape();
    int64_t axis = op_p->attr<Attributes::Int>("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= s[d];
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) inner *= s[d];
    const int64_t rows = s[axis], cols = idx.nelms();
    auto where = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(cols));
    const std::string name = op_p->debugName();
    prog.add([=] {
      checkIndices(idx, rows, *where, name);
      const double fv = dampened ? f.get() : 1.0;
      dispatchFloat(a.dtype(), [&](auto ta) {
        dispatchFloat(x.dtype(), [&](auto tx) {
          using TA = decltype(ta);
          using TX = decltype(tx);
          using C = std::conditional_t<std::is_same_v<TA, double>, double, float>;
          TA *pa = static_cast<TA *>(a.raw());
          const TX *px = static_cast<const TX *>(x.raw());
          const C fc = C(fv);
          // Threads split the inner positions, so repeated indices never race.
          popx::Opx::parallelFor(outer * inner, [&](int64_t b, int64_t e) {
            for (int64_t q = b; q < e; ++q) {
              const int64_t o = q / inner, c = q % inner;
              for (int64_t j = 0; j < cols; ++j) {
                TA &dst = pa[(o * rows + (*where)[j]) * inner + c];
                dst = TA(C(compute_t<TA>(dst)) + fc * C(compute_t<TX>(px[(o * cols + j) * inner + c])));
              }
            }
          }, 1024);
        });
      });
    });
  }

private:
  /// The indices as rows in [0, rows) (negative ones count from the end); throws for others.
  static void checkIndices(const TensorView &idx, int64_t rows, std::vector<int64_t> &where, const std::string &op) {
    switch (idx.dtype()) {
    case DataType::INT32: readIndices<int32_t>(idx, where); break;
    case DataType::UINT32: readIndices<uint32_t>(idx, where); break;
    default: readIndices<int64_t>(idx, where); break;
    }
    for (int64_t &r : where) {
      if (r < -rows || r >= rows)
        throw error("{}: index {} is out of range for {} rows of the accumulator", op, r, rows);
      if (r < 0) r += rows;
    }
  }
};

// ---- AccumulatorScale ----

class AccumulatorScaleOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const TensorView a = getInTensor(scale::kAccum);
    const Hyper f = hyper(*this, scale::kFactor, "factor", 0.0);
    prog.add([=] {
      const double fv = f.get();
      if (fv == 0.0) {
        std::memset(a.raw(), 0, static_cast<size_t>(a.nbytes()));
        return;
      }
      vu::dispatchCompute(a.dtype(), [&](auto tag) {
        using C = decltype(tag);
        vu::forChunks(a.nelms(), [&](int64_t o, int64_t k) {
          C ab[vu::kChunk];
          C *p = vu::view(a, o, k, ab);
          for (int64_t i = 0; i < k; ++i) p[i] *= C(fv);
          vu::commit(a, o, k, p);
        });
      });
    });
  }
};

// ---- AdamUpdater ----

// u = m~ / (sqrt(v~) + eps) (Adam, Lamb and their NoBias forms) or m~ / (v + eps) (AdaMax),
// m~ = m / (1 - b1^t), v~ = v / (1 - b2^t) with bias correction (t incremented first), else m, v;
// then u += wd * w with weight decay.
class AdamUpdaterOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto mode = static_cast<AdamMode>(op_p->attr<Attributes::Int>("mode", 0));
    const bool bias = mode == AdamMode::Adam || mode == AdamMode::Lamb || mode == AdamMode::AdaMax;
    const bool adamax = mode == AdamMode::AdaMax;
    const TensorView w = hasInput(adam::kWeight) ? getInTensor(adam::kWeight) : TensorView();
    const TensorView m = getInTensor(adam::kM), v = getInTensor(adam::kV), u = getOutTensor(0);
    const TensorView step = hasInput(adam::kStep) ? getInTensor(adam::kStep) : TensorView();
    const Hyper wd = hyper(*this, adam::kWd, "weightDecay", 0.0), b1 = hyper(*this, adam::kBeta1, "beta1", 0.9),
                b2 = hyper(*this, adam::kBeta2, "beta2", 0.999), eps = hyper(*this, adam::kEps, "epsilon", 1e-7);
    prog.add([=] {
      double c1 = 1, c2 = 1;
      if (bias) {
        const double t = incrementStep(step);
        c1 = 1 - std::pow(b1.get(), t);
        c2 = 1 - std::pow(b2.get(), t);
      }
      const double decay = wd.get(), e = eps.get();
      vu::dispatchCompute(m.dtype(), [&](auto tag) {
        using C = decltype(tag);
        const C ic1 = C(1 / c1), ic2 = C(1 / c2), ce = C(e), cwd = C(decay);
        vu::forChunks(m.nelms(), [&](int64_t o, int64_t k) {
          C mb[vu::kChunk], vb[vu::kChunk], wb[vu::kChunk], ub[vu::kChunk];
          const C *pm = vu::view(m, o, k, mb), *pv = vu::view(v, o, k, vb);
          C *pu = vu::view(u, o, k, ub);
          if (adamax)
            for (int64_t i = 0; i < k; ++i) pu[i] = pm[i] * ic1 / (pv[i] + ce);
          else
            for (int64_t i = 0; i < k; ++i) pu[i] = pm[i] * ic1 / (std::sqrt(pv[i] * ic2) + ce);
          if (cwd != C(0)) {
            const C *pw = vu::view(w, o, k, wb);
            for (int64_t i = 0; i < k; ++i) pu[i] += cwd * pw[i];
          }
          vu::commit(u, o, k, pu);
        });
      });
    });
  }

private:
  /// t += 1 in the step tensor's own type; returns the stored value.
  static double incrementStep(const TensorView &step) {
    return dispatchFloat(step.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T &t = *static_cast<T *>(step.raw());
      t = T(compute_t<T>(t) + compute_t<T>(1));
      return double(compute_t<T>(t));
    });
  }
};

// ---- AdamVarUpdate: w -= lr * ratio * x ----

class AdamVarUpdateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const TensorView w = getInTensor(adamvar::kWeight), x = getInTensor(adamvar::kUpdater);
    const TensorView r1 = hasInput(adamvar::kR1Sq) ? getInTensor(adamvar::kR1Sq) : TensorView();
    const TensorView r2 = hasInput(adamvar::kR2Sq) ? getInTensor(adamvar::kR2Sq) : TensorView();
    const Hyper lr = hyper(*this, adamvar::kLr, "learningRate", 1.0);
    const Hyper mwn = hyper(*this, adamvar::kMwn, "maxWeightNorm", std::numeric_limits<float>::infinity());
    prog.add([=] {
      double ratio = 1;
      if (r1.raw()) {
        const double n1 = std::min(std::sqrt(readScalar(r1)), mwn.get()), n2 = std::sqrt(readScalar(r2));
        if (n1 > 0 && n2 > 0) ratio = n1 / n2;
      }
      const double scale = lr.get() * ratio;
      vu::dispatchCompute(w.dtype(), [&](auto tag) {
        using C = decltype(tag);
        const C s = C(scale);
        vu::forChunks(w.nelms(), [&](int64_t o, int64_t k) {
          C wb[vu::kChunk], xb[vu::kChunk];
          C *pw = vu::view(w, o, k, wb);
          const C *px = vu::view(x, o, k, xb);
          for (int64_t i = 0; i < k; ++i) pw[i] -= s * px[i];
          vu::commit(w, o, k, pw);
        });
      });
    });
  }
};

// ---- LambSquare: sum(x^2) in double, in a fixed block order. ----

class LambSquareOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const TensorView x = getInTensor(0), y = getOutTensor(0);
    prog.add([=] {
      auto sums = vu::blockSums<1>(x.nelms(), [&](int64_t b, int64_t n, double *s) {
        double buf[vu::kChunk];
        for (int64_t o = b; o < b + n; o += vu::kChunk) {
          const int64_t k = std::min(vu::kChunk, b + n - o);
          const double *p = vu::view(x, o, k, buf);
          for (int64_t i = 0; i < k; ++i) s[0] += p[i] * p[i];
        }
      });
      *y.data<float>() = static_cast<float>(sums[0]);
    });
  }
};

} // namespace
static popx::OpxCreator<AccumulateOpx> accumulateOpxCreator(internalOp("Accumulate"));
static popx::OpxCreator<SparseAccumulateOpx> sparseAccumulateOpxCreator(internalOp("SparseAccumulate"));
static popx::OpxCreator<AccumulatorScaleOpx> accumulatorScaleOpxCreator(internalOp("AccumulatorScale"));
static popx::OpxCreator<AdamUpdaterOpx> adamUpdaterOpxCreator(internalOp("AdamUpdater"));
static popx::OpxCreator<AdamVarUpdateOpx> adamVarUpdateOpxCreator(internalOp("AdamVarUpdate"));
static popx::OpxCreator<LambSquareOpx> lambSquareOpxCreator(internalOp("LambSquare"));
} // namespace popart::cpu
