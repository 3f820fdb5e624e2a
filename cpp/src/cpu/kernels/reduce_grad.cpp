// Reduce* gradients (dY, X, Y -> dX). dY and Y have the kept shape K (reduced dims
// of size 1) and are broadcast over X's shape by one plan (K, K -> X):
//   Sum g, Mean g/N, SumSquare 2xg, L1 sign(x)g, L2 (y = 0 ? 0 : xg/y), LogSum g/e^y,
//   LogSumExp g e^(x-y), Max/Min [x = y] g/ties, Prod: no zero in the group y g/x; one
//   zero: the zero gets g * product of the others, the rest 0; more zeros: 0 (as torch).
// Max/Min tie counts and Prod's zero count / non-zero product are K-shaped buffers
// filled by a first pass. float16 computes in float.
#include "cpu/devicex.hpp"
#include "broadcast.hpp"
#include "dispatch.hpp"
#include "ops/reduce.hpp"
#include <cmath>
#include <cstring>
#include <map>

namespace popart::cpu {
namespace {

enum class ReduceGradKind { Sum, Mean, SumSquare, L1, L2, LogSum, LogSumExp, Max, Min, Prod };

ReduceGradKind reduceGradKindOf(const std::string &gradType) {
  static const std::map<std::string, ReduceGradKind> m{
      {"ReduceSumGrad", ReduceGradKind::Sum}, {"ReduceMeanGrad", ReduceGradKind::Mean},
      {"ReduceSumSquareGrad", ReduceGradKind::SumSquare}, {"ReduceL1Grad", ReduceGradKind::L1}, {"ReduceL2Grad", ReduceGradKind::L2},
      {"ReduceLogSumGrad", ReduceGradKind::LogSum}, {"ReduceLogSumExpGrad", ReduceGradKind::LogSumExp},
      {"ReduceMaxGrad", ReduceGradKind::Max}, {"ReduceMinGrad", ReduceGradKind::Min}, {"ReduceProdGrad", ReduceGradKind::Prod}};
  auto it = m.find(gradType);
  if (it == m.end()) throw internal_error("no reduction gradient kernel for {}", gradType);
  return it->second;
}

// For every x: aux0/aux1 (K-shaped, zeroed/oned here) accumulate per group: Max/Min
// aux0 += [x = y]; Prod aux0 += [x = 0], aux1 *= (x = 0 ? 1 : x). Rows of one group
// come in sequence (serial loop).
template <class T> void reduceGroupPass(const BroadcastPlan &p, ReduceGradKind k, const T *y, const T *x, T *aux0, T *aux1,
                                  int64_t kn) {
  using C = compute_t<T>;
  std::fill(aux0, aux0 + kn, T(0.0f));
  if (aux1) std::fill(aux1, aux1 + kn, T(1.0f));
  runBroadcastRows(p, y, static_cast<const T *>(aux0), const_cast<T *>(x),
                   [=](const T *yr, const T *ar, T *xr_, int64_t n, RowMode m) {
    const int64_t s = m == RowMode::VV ? 1 : 0, ko = ar - aux0;
    const T *xr = xr_;
    for (int64_t i = 0; i < n; ++i) {
      const C v = C(xr[i]);
      T &a0 = aux0[ko + i * s];
      if (k != ReduceGradKind::Prod) {
        a0 = T(C(a0) + (v == C(yr[i * s]) ? C(1) : C(0)));
      } else if (v == C(0)) {
        a0 = T(C(a0) + C(1));
      } else {
        T &a1 = aux1[ko + i * s];
        a1 = T(C(a1) * v);
      }
    }
  }, false);
}

// dx = f(g, x, y, a0, a1) with g, y, a0, a1 read at x's group.
template <class T> void reduceGradPass(const BroadcastPlan &p, ReduceGradKind k, double count, const T *dy, const T *y,
                                 const T *x, const T *aux0, const T *aux1, T *dx) {
  using C = compute_t<T>;
  const C invN = C(1.0 / count);
  runBroadcastRows(p, dy, y, dx, [=](const T *gr, const T *yr, T *dr, int64_t n, RowMode m) {
    const int64_t s = m == RowMode::VV ? 1 : 0, ko = gr - dy;
    const T *xr = x + (dr - dx);
    for (int64_t i = 0; i < n; ++i) {
      const C g = C(gr[i * s]), v = C(xr[i]), yv = C(yr[i * s]);
      C d = g;
      switch (k) {
      case ReduceGradKind::Sum: break;
      case ReduceGradKind::Mean: d = g * invN; break;
      case ReduceGradKind::SumSquare: d = C(2) * v * g; break;
      case ReduceGradKind::L1: d = v > C(0) ? g : (v < C(0) ? -g : C(0)); break;
      case ReduceGradKind::L2: d = yv == C(0) ? C(0) : g * v / yv; break;
      case ReduceGradKind::LogSum: d = g / std::exp(yv); break;
      case ReduceGradKind::LogSumExp: d = g * std::exp(v - yv); break;
      case ReduceGradKind::Max:
      case ReduceGradKind::Min: d = v == yv ? g / C(aux0[ko + i * s]) : C(0); break;
      case ReduceGradKind::Prod: {
        const C zeros = C(aux0[ko + i * s]);
        if (zeros == C(0)) d = g * yv / v;
        else d = zeros == C(1) && v == C(0) ? g * C(aux1[ko + i * s]) : C(0);
        break;
      }
      }
      dr[i] = T(d);
    }
  });
}

class ReduceGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ReduceGradOp>();
    auto dy = getInTensor(0), x = getInTensor(1), y = getInTensor(2), dx = getOutTensor(0);
    if (op.isNoop()) {
      prog.add([dy, dx] { std::memcpy(dx.raw(), dy.raw(), static_cast<size_t>(dx.nbytes())); });
      return;
    }
    const ReduceGradKind k = reduceGradKindOf(op.opid.type);
    const Shape &keep = op.keepShape();
    const BroadcastPlan plan = makeBroadcastPlan(keep, keep, x.shape());
    const TensorInfo keepInfo(dy.dtype(), keep);
    const bool grouped = k == ReduceGradKind::Max || k == ReduceGradKind::Min || k == ReduceGradKind::Prod;
    popx::TensorView aux0 = grouped ? dv_p->workspace(keepInfo) : popx::TensorView{};
    popx::TensorView aux1 = k == ReduceGradKind::Prod ? dv_p->workspace(keepInfo) : popx::TensorView{};
    const double count = keepInfo.nelms() ? double(x.nelms()) / double(keepInfo.nelms()) : 1.0;
    prog.add([=] {
      if (dx.nelms() == 0) return;
      dispatchFloat(dx.dtype(), [&](auto tag) {
        using T = decltype(tag);
        T *a0 = grouped ? aux0.data<T>() : nullptr, *a1 = aux1.raw() ? aux1.data<T>() : nullptr;
        if (grouped) reduceGroupPass(plan, k, y.data<T>(), x.data<T>(), a0, a1, aux0.nelms());
        reduceGradPass<T>(plan, k, count, dy.data<T>(), y.data<T>(), x.data<T>(), a0, a1, dx.data<T>());
      });
    });
  }
};

std::vector<OperatorIdentifier> reduceGradIds() {
  std::vector<OperatorIdentifier> ids;
  for (const char *t : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"})
    ids.push_back(internalOp(std::string(t) + "Grad"));
  return ids;
}

} // namespace
static popx::OpxCreator<ReduceGradOpx> reduceGradOpxCreator(reduceGradIds());
} // namespace popart::cpu
