// Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh (<cmath>, per
// element) and ai.graphcore Expm1 (vectorised series near 0) and Log1p.
// float16 computes in float.
#include "unary_fn.hpp"

namespace popart::cpu {
namespace {

#define POPART_TRIG_FUNCTOR(NAME, EXPR)                                                               \
  struct NAME {                                                                                      \
    template <class C> C operator()(C x) const { return EXPR; }                                     \
  }
POPART_TRIG_FUNCTOR(SinF, std::sin(x));
POPART_TRIG_FUNCTOR(CosF, std::cos(x));
POPART_TRIG_FUNCTOR(TanF, std::tan(x));
POPART_TRIG_FUNCTOR(AsinF, std::asin(x));
POPART_TRIG_FUNCTOR(AcosF, std::acos(x));
POPART_TRIG_FUNCTOR(AtanF, std::atan(x));
POPART_TRIG_FUNCTOR(SinhF, std::sinh(x));
POPART_TRIG_FUNCTOR(CoshF, std::cosh(x));
POPART_TRIG_FUNCTOR(AsinhF, std::asinh(x));
POPART_TRIG_FUNCTOR(AcoshF, std::acosh(x));
POPART_TRIG_FUNCTOR(AtanhF, std::atanh(x));
POPART_TRIG_FUNCTOR(Expm1F, ufn::expm1(x));
POPART_TRIG_FUNCTOR(Log1pF, std::log1p(x));
#undef POPART_TRIG_FUNCTOR

UnaryStep trigStep(const Op &op, const popx::TensorView &x, const popx::TensorView &y) {
  const std::string t = unaryBaseType(op);
  if (t == "Sin") return floatUnaryStep(x, y, SinF{});
  if (t == "Cos") return floatUnaryStep(x, y, CosF{});
  if (t == "Tan") return floatUnaryStep(x, y, TanF{});
  if (t == "Asin") return floatUnaryStep(x, y, AsinF{});
  if (t == "Acos") return floatUnaryStep(x, y, AcosF{});
  if (t == "Atan") return floatUnaryStep(x, y, AtanF{});
  if (t == "Sinh") return floatUnaryStep(x, y, SinhF{});
  if (t == "Cosh") return floatUnaryStep(x, y, CoshF{});
  if (t == "Asinh") return floatUnaryStep(x, y, AsinhF{});
  if (t == "Acosh") return floatUnaryStep(x, y, AcoshF{});
  if (t == "Atanh") return floatUnaryStep(x, y, AtanhF{});
  if (t == "Expm1") return floatUnaryStep(x, y, Expm1F{});
  if (t == "Log1p") return floatUnaryStep(x, y, Log1pF{});
  throw error("no trigonometric kernel for {}", t);
}

} // namespace
static popx::OpxCreator<UnaryFnOpx<trigStep>> trigOpxCreator(withInplaceIds(
    {onnxOp("Sin"), onnxOp("Cos"), onnxOp("Tan"), onnxOp("Asin"), onnxOp("Acos"), onnxOp("Atan"), onnxOp("Sinh"),
     onnxOp("Cosh"), onnxOp("Asinh"), onnxOp("Acosh"), onnxOp("Atanh"), graphcoreOp("Expm1"), graphcoreOp("Log1p")}));
} // namespace popart::cpu
