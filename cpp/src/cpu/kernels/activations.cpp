// Activations: Elu, Selu, Celu (x > 0 ? x : alpha expm1(x / alpha)), HardSigmoid, HardSwish, Softsign,
// Softplus (max(x,0) + log1p(e^-|x|)), ThresholdedRelu, Shrink, Gelu (erf or tanh
// form), ai.graphcore Gelu (tanh), GeluErf, Swish (x sigmoid(alpha x); alpha = 1 for ai.graphcore),
// Mish (x tanh(softplus(x))) and Scale (x * scale).
#include "unary_fn.hpp"

namespace popart::cpu {
namespace {

/// min(max(v, 0), 1) with NaN passing through; selects, so loops vectorise.
template <class C> inline C clamp01(C v) {
  v = v < C(0) ? C(0) : v;
  return v > C(1) ? C(1) : v;
}

struct EluF {
  float alpha;
  template <class C> C operator()(C x) const { return x > C(0) ? x : C(alpha) * ufn::expm1(x); }
};
struct SeluF {
  float alpha, gamma;
  template <class C> C operator()(C x) const { return C(gamma) * (x > C(0) ? x : C(alpha) * ufn::expm1(x)); }
};
struct CeluF {
  float alpha;
  template <class C> C operator()(C x) const { return x > C(0) ? x : C(alpha) * ufn::expm1(x / C(alpha)); }
};
struct HardSigmoidF {
  float alpha, beta;
  template <class C> C operator()(C x) const { return clamp01(C(alpha) * x + C(beta)); }
};
struct HardSwishF {
  template <class C> C operator()(C x) const { return x * clamp01(x / C(6) + C(0.5)); }
};
struct SoftsignF {
  template <class C> C operator()(C x) const { return x / (C(1) + std::fabs(x)); }
};
struct SoftplusF {
  template <class C> C operator()(C x) const { return (x > C(0) ? x : C(0)) + ufn::log1pUnit(ufn::exp(-std::fabs(x))); }
};
struct ThresholdedReluF {
  float alpha;
  template <class C> C operator()(C x) const { return x > C(alpha) ? x : C(0); }
};
struct ShrinkF {  // integers compare and shift in double
  float lambd, bias;
  template <class C> C operator()(C x) const {
    using A = std::conditional_t<std::is_integral_v<C>, double, C>;
    A v = static_cast<A>(x), l = static_cast<A>(lambd), b = static_cast<A>(bias);
    return static_cast<C>(v < -l ? v + b : (v > l ? v - b : A(0)));
  }
};
struct GeluErfF {
  template <class C> C operator()(C x) const { return C(0.5) * x * (C(1) + ufn::erf(x * C(0.70710678118654752))); }
};
struct GeluTanhF {
  template <class C> C operator()(C x) const {
    return C(0.5) * x * (C(1) + ufn::tanh(C(0.79788456080286536) * (x + C(0.044715) * x * x * x)));
  }
};
struct SwishF {
  float alpha;
  template <class C> C operator()(C x) const {
    C ax = C(alpha) * x, e = ufn::exp(-std::fabs(ax)), s = C(1) / (C(1) + e);  // sigmoid without overflow
    return x * (ax < C(0) ? e * s : s);
  }
};
struct MishF {
  template <class C> C operator()(C x) const { return x * ufn::tanh(SoftplusF{}(x)); }
};
struct ScaleF {
  float scale;
  template <class C> C operator()(C x) const {
    using A = std::conditional_t<std::is_integral_v<C>, double, C>;
    return static_cast<C>(static_cast<A>(x) * static_cast<A>(scale));
  }
};

bool geluUsesTanh(const Op &op) {
  if (op.opid.domain == Domain::ai_graphcore && op.opid.type == "Gelu") return true;
  return op.attr<Attributes::String>("approximate", "none") == "tanh";
}

UnaryStep activationStep(const Op &op, const popx::TensorView &x, const popx::TensorView &y) {
  const std::string t = unaryBaseType(op);
  auto f = [&op](const char *name, float dflt) { return op.attr<Attributes::Float>(name, dflt); };
  if (t == "Elu") return floatUnaryStep(x, y, EluF{f("alpha", 1.0f)});
  if (t == "Selu")
    return floatUnaryStep(x, y, SeluF{f("alpha", 1.67326319217681884765625f), f("gamma", 1.05070102214813232421875f)});
  if (t == "Celu") return floatUnaryStep(x, y, CeluF{f("alpha", 1.0f)});
  if (t == "HardSigmoid") return floatUnaryStep(x, y, HardSigmoidF{f("alpha", 0.2f), f("beta", 0.5f)});
  if (t == "HardSwish") return floatUnaryStep(x, y, HardSwishF{});
  if (t == "Softsign") return floatUnaryStep(x, y, SoftsignF{});
  if (t == "Softplus") return floatUnaryStep(x, y, SoftplusF{});
  if (t == "ThresholdedRelu") return floatUnaryStep(x, y, ThresholdedReluF{f("alpha", 1.0f)});
  if (t == "Shrink") return numericUnaryStep(x, y, ShrinkF{f("lambd", 0.5f), f("bias", 0.0f)});
  if (t == "Gelu" && geluUsesTanh(op)) return floatUnaryStep(x, y, GeluTanhF{});
  if (t == "Gelu" || t == "GeluErf") return floatUnaryStep(x, y, GeluErfF{});
  if (t == "Swish") return floatUnaryStep(x, y, SwishF{f("alpha", 1.0f)});
  if (t == "Mish") return floatUnaryStep(x, y, MishF{});
  if (t == "Scale") return numericUnaryStep(x, y, ScaleF{op.attr<Attributes::Float>("scale")});
  throw error("no activation kernel for {}", t);
}

} // namespace
static popx::OpxCreator<UnaryFnOpx<activationStep>> activationOpxCreator(withInplaceIds(
    {onnxOp("Elu"), onnxOp("Selu"), onnxOp("Celu"), onnxOp("HardSigmoid"), onnxOp("HardSwish"), onnxOp("Softsign"),
     onnxOp("Softplus"), onnxOp("ThresholdedRelu"), onnxOp("Shrink"), onnxOp("Gelu"), graphcoreOp("GeluErf"),
     graphcoreOp("Swish"), onnxOp("Mish"), graphcoreOp("Scale")}));
// Their in-place ids are those of ai.onnx Gelu and ai.graphcore Swish, registered above.
static popx::OpxCreator<UnaryFnOpx<activationStep>> activationSharedOpxCreator(
    std::vector<OperatorIdentifier>{graphcoreOp("Gelu"), onnxOp("Swish")});
} // namespace popart::cpu
