// Gradients "<Type>Grad" (inputs dY, X) of the unary_fn ops: dx = dy * f'(x), one
// functor per function. Sign/Floor/Ceil/Round/NearbyInt: 0 (as torch). Trig and
// hyperbolic: the usual derivatives (Acosh 1/sqrt(x^2-1), Atanh 1/(1-x^2)); Expm1 e^x,
// Log1p 1/(1+x). Elu/Selu/Celu: x > 0 ? 1 : alpha e^x (Selu times gamma; Celu e^(x/alpha));
// HardSigmoid alpha inside (0, 1); HardSwish 0 / x/3 + 1/2 / 1 on x <= -3 / < 3 / else (torch);
// Softsign 1/(1+|x|)^2; Softplus sigmoid(x); ThresholdedRelu [x > alpha]; Shrink [|x| > lambd];
// Gelu Phi(x) + x phi(x) (erf) or torch's tanh-form derivative; Swish s (1 + alpha x (1 - s)) with
// s = sigmoid(alpha x); Mish t + x (1 - t^2) sigmoid(x) with t = tanh(softplus(x)); Scale s.
#include "unary_fn.hpp"
#include <map>

namespace popart::cpu {
namespace {

template <class C> C ufgSigmoid(C x) { return C(1) / (C(1) + std::exp(-x)); }

struct ZeroD { template <class C> C operator()(C, C) const { return C(0); } };
struct SinD { template <class C> C operator()(C g, C x) const { return g * std::cos(x); } };
struct CosD { template <class C> C operator()(C g, C x) const { return -g * std::sin(x); } };
struct TanD {
  template <class C> C operator()(C g, C x) const {
    C t = std::tan(x);
    return g * (C(1) + t * t);
  }
};
struct AsinD { template <class C> C operator()(C g, C x) const { return g / std::sqrt(C(1) - x * x); } };
struct AcosD { template <class C> C operator()(C g, C x) const { return -g / std::sqrt(C(1) - x * x); } };
struct AtanD { template <class C> C operator()(C g, C x) const { return g / (C(1) + x * x); } };
struct SinhD { template <class C> C operator()(C g, C x) const { return g * std::cosh(x); } };
struct CoshD { template <class C> C operator()(C g, C x) const { return g * std::sinh(x); } };
struct AsinhD { template <class C> C operator()(C g, C x) const { return g / std::sqrt(x * x + C(1)); } };
struct AcoshD { template <class C> C operator()(C g, C x) const { return g / std::sqrt(x * x - C(1)); } };
struct AtanhD { template <class C> C operator()(C g, C x) const { return g / (C(1) - x * x); } };
struct Expm1D { template <class C> C operator()(C g, C x) const { return g * std::exp(x); } };
struct Log1pD { template <class C> C operator()(C g, C x) const { return g / (C(1) + x); } };
struct EluD {
  float alpha, gamma;
  template <class C> C operator()(C g, C x) const { return C(gamma) * (x > C(0) ? g : g * C(alpha) * std::exp(x)); }
};
struct CeluD {
  float alpha;
  template <class C> C operator()(C g, C x) const { return x > C(0) ? g : g * std::exp(x / C(alpha)); }
};
struct HardSigmoidD {
  float alpha, beta;
  template <class C> C operator()(C g, C x) const {
    C v = C(alpha) * x + C(beta);
    return v > C(0) && v < C(1) ? g * C(alpha) : C(0);
  }
};
struct HardSwishD {
  template <class C> C operator()(C g, C x) const {
    return x <= C(-3) ? C(0) : (x < C(3) ? g * (x / C(3) + C(0.5)) : g);
  }
};
struct SoftsignD {
  template <class C> C operator()(C g, C x) const {
    C d = C(1) + std::fabs(x);
    return g / (d * d);
  }
};
struct SoftplusD { template <class C> C operator()(C g, C x) const { return g * ufgSigmoid(x); } };
struct ThresholdedReluD {
  float alpha;
  template <class C> C operator()(C g, C x) const { return x > C(alpha) ? g : C(0); }
};
struct ShrinkD {
  float lambd;
  template <class C> C operator()(C g, C x) const { return x < -C(lambd) || x > C(lambd) ? g : C(0); }
};
struct GeluErfD {
  template <class C> C operator()(C g, C x) const {
    C cdf = C(0.5) * (C(1) + ufn::erf(x * C(0.70710678118654752)));  // float: vectorised forms
    return g * (cdf + x * C(0.39894228040143268) * ufn::exp(C(-0.5) * x * x));
  }
};
struct GeluTanhD {
  template <class C> C operator()(C g, C x) const {
    const C k = C(0.79788456080286536), c = C(0.044715);
    C t = std::tanh(k * (x + c * x * x * x));
    return g * (C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * k * (C(1) + C(3) * c * x * x));
  }
};
struct SwishD {
  float alpha;
  template <class C> C operator()(C g, C x) const {
    C ax = C(alpha) * x, s = ufgSigmoid(ax);
    return g * s * (C(1) + ax * (C(1) - s));
  }
};
struct MishD {
  template <class C> C operator()(C g, C x) const {
    C t = std::tanh((x > C(0) ? x : C(0)) + std::log1p(std::exp(-std::fabs(x))));
    return g * (t + x * (C(1) - t * t) * ufgSigmoid(x));
  }
};
struct ScaleD {
  float scale;
  template <class C> C operator()(C g, C) const { return g * C(scale); }
};

/// dx[i] = d(dy[i], x[i]) over float rows, compiled per vector unit (branch-free functors vectorise).
template <class D> POPART_SIMD_CLONES void ufgRowF32(const float *g, const float *x, float *dx, int64_t n, D d) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dx[i] = d(g[i], x[i]);
}

/// A step dx[i] = d(dy[i], x[i]) over whole tensors of the floating type of dy.
template <class D> UnaryStep ufgStep(const popx::TensorView &dy, const popx::TensorView &x,
                                      const popx::TensorView &dx, D d) {
  return dispatchFloat(dx.dtype(), [&](auto tag) -> UnaryStep {
    using T = decltype(tag);
    using C = compute_t<T>;
    const T *pg = dy.data<T>(), *px = x.data<T>();
    T *pd = dx.data<T>();
    const int64_t n = dx.nelms();
    return [=] {
      popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
        if constexpr (std::is_same_v<T, float16_t>) {
          for (int64_t i = b; i < e; ++i) pd[i] = T(d(C(pg[i]), C(px[i])));
        } else if constexpr (std::is_same_v<T, float>) {
          ufgRowF32(pg + b, px + b, pd + b, e - b, d);
        } else {
#pragma omp simd
          for (int64_t i = b; i < e; ++i) pd[i] = d(pg[i], px[i]);
        }
      }, 16384);
    };
  });
}

using UfgStepFactory = UnaryStep (*)(const Op &, const popx::TensorView &, const popx::TensorView &,
                                      const popx::TensorView &);

template <class D> UfgStepFactory ufgPlain() {
  return [](const Op &, const popx::TensorView &g, const popx::TensorView &x, const popx::TensorView &d) {
    return ufgStep(g, x, d, D{});
  };
}

float ufgAttr(const Op &op, const char *name, float dflt) { return op.attr<Attributes::Float>(name, dflt); }

const std::map<std::string, UfgStepFactory> &ufgFactories() {
  using V = popx::TensorView;
  static const std::map<std::string, UfgStepFactory> m{
      {"Sign", ufgPlain<ZeroD>()}, {"Floor", ufgPlain<ZeroD>()}, {"Ceil", ufgPlain<ZeroD>()},
      {"Round", ufgPlain<ZeroD>()}, {"NearbyInt", ufgPlain<ZeroD>()}, {"Sin", ufgPlain<SinD>()},
      {"Cos", ufgPlain<CosD>()}, {"Tan", ufgPlain<TanD>()}, {"Asin", ufgPlain<AsinD>()},
      {"Acos", ufgPlain<AcosD>()}, {"Atan", ufgPlain<AtanD>()}, {"Sinh", ufgPlain<SinhD>()},
      {"Cosh", ufgPlain<CoshD>()}, {"Asinh", ufgPlain<AsinhD>()}, {"Acosh", ufgPlain<AcoshD>()},
      {"Atanh", ufgPlain<AtanhD>()}, {"Expm1", ufgPlain<Expm1D>()}, {"Log1p", ufgPlain<Log1pD>()},
      {"HardSwish", ufgPlain<HardSwishD>()}, {"Softsign", ufgPlain<SoftsignD>()},
      {"Softplus", ufgPlain<SoftplusD>()}, {"GeluErf", ufgPlain<GeluErfD>()}, {"Mish", ufgPlain<MishD>()},
      {"Elu", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, EluD{ufgAttr(op, "alpha", 1.0f), 1.0f});
       }},
      {"Selu", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, EluD{ufgAttr(op, "alpha", 1.67326319217681884765625f),
                                       ufgAttr(op, "gamma", 1.05070102214813232421875f)});
       }},
      {"Celu", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, CeluD{ufgAttr(op, "alpha", 1.0f)});
       }},
      {"HardSigmoid", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, HardSigmoidD{ufgAttr(op, "alpha", 0.2f), ufgAttr(op, "beta", 0.5f)});
       }},
      {"ThresholdedRelu", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, ThresholdedReluD{ufgAttr(op, "alpha", 1.0f)});
       }},
      {"Shrink", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, ShrinkD{ufgAttr(op, "lambd", 0.5f)});
       }},
      {"Gelu", [](const Op &op, const V &g, const V &x, const V &d) {
         if (op.attr<Attributes::String>("approximate", "none") == "tanh") return ufgStep(g, x, d, GeluTanhD{});
         return ufgStep(g, x, d, GeluErfD{});
       }},
      {"Swish", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, SwishD{ufgAttr(op, "alpha", 1.0f)});
       }},
      {"Scale", [](const Op &op, const V &g, const V &x, const V &d) {
         return ufgStep(g, x, d, ScaleD{op.attr<Attributes::Float>("scale")});
       }},
  };
  return m;
}

class UnaryFnGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const std::string &t = op_p->opid.type;
    auto it = ufgFactories().find(t.substr(0, t.size() - 4));  // strip "Grad"
    if (it == ufgFactories().end()) throw internal_error("no unary gradient kernel for {}", t);
    prog.add(it->second(*op_p, getInTensor(0), getInTensor(1), getOutTensor(0)));
  }
};

std::vector<OperatorIdentifier> unaryFnGradIds() {
  std::vector<OperatorIdentifier> ids;
  for (const auto &kv : ufgFactories()) ids.push_back(internalOp(kv.first + "Grad"));
  return ids;
}

} // namespace
static popx::OpxCreator<UnaryFnGradOpx> unaryFnGradOpxCreator(unaryFnGradIds());
} // namespace popart::cpu
