// Gemm (ai.onnx 6, 7, 9, 11, 13): Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A,
// B' = transB ? B^T : B; C (optional from 11) broadcasts unidirectionally to [M, N].
// Gradients (GemmGrad, arg = 0, 1, 2): dA' = alpha dY B'^T, dB' = alpha A'^T dY (transposed back
// when transA/transB), dC = beta * dY summed over the dimensions C was broadcast along.
// GemmFused: see gemm.hpp.
#include "gemm.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

/// GemmGrad of input `arg`: inputs dY (0) and, for A and B, the other matrix (1). Keeps the
/// forward attributes and adds `arg`.
class GemmGradOp final : public Op {
public:
  GemmGradOp(const Op &fwd, InIndex arg) : Op(internalOp("GemmGrad"), fwd.settings), argInfo_(fwd.inInfo(arg)) {
    attributes() = fwd.attributes();
    attributes().setAttribute("arg", Attributes::Int(arg));
    if (!fwd.hasInput(2)) attributes().setAttribute("beta", 0.0f);
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    using G = GradOpInType;
    static const std::vector<GradInOutMapper> forA{{0, 0, G::GradOut}, {1, 1, G::In}};
    static const std::vector<GradInOutMapper> forB{{0, 0, G::GradOut}, {1, 0, G::In}};
    static const std::vector<GradInOutMapper> forC{{0, 0, G::GradOut}};
    int64_t arg = attr<Attributes::Int>("arg");
    return arg == 0 ? forA : arg == 1 ? forB : forC;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> to[3] = {{{0, 0}}, {{0, 1}}, {{0, 2}}};
    return to[attr<Attributes::Int>("arg")];
  }

private:
  TensorInfo argInfo_;
};

class GemmOp final : public Op {  // inputs: A (0), B (1), C (2, optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> ops;
    for (InIndex arg : {0, 1, 2})
      if (hasInput(arg)) ops.push_back(std::make_unique<GemmGradOp>(*this, arg));
    return ops;
  }
  void setup() override {
    const auto &a = inInfo(0), &b = inInfo(1);
    if (a.rank() != 2 || b.rank() != 2) throw error("Gemm needs 2-D A and B, got A {} and B {}", a.shape(), b.shape());
    if (a.dataType() != b.dataType())
      throw error("inputs have different types: {} and {}", a.data_type(), b.data_type());
    bool ta = attr<Attributes::Int>("transA", 0) != 0, tb = attr<Attributes::Int>("transB", 0) != 0;
    int64_t m = a.dim(ta ? 1 : 0), k = a.dim(ta ? 0 : 1);
    int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
    if (k != kb) throw error("Gemm inner dimensions differ: A' has {} columns, B' has {} rows", k, kb);
    if (hasInput(2)) checkC(m, n);
    else if (opid.version < 11) throw error("Gemm before opset 11 requires input C");
    outInfo(0) = TensorInfo(a.dataType(), {m, n});
  }

private:
  void checkC(int64_t m, int64_t n) const {
    const auto &c = inInfo(2);
    if (c.dataType() != inInfo(0).dataType())
      throw error("input C has type {}, expected {}", c.data_type(), inInfo(0).data_type());
    bool legacyExact = opid.version < 7 && attr<Attributes::Int>("broadcast", 0) == 0;
    Shape want{m, n};
    bool ok = c.rank() <= 2;
    for (int64_t i = 0; ok && i < c.rank(); ++i) {
      int64_t d = c.shape()[c.rank() - 1 - i], w = want[1 - i];
      ok = d == w || (d == 1 && !legacyExact);
    }
    if (!ok || (legacyExact && c.rank() != 2))
      throw error("input C {} cannot be broadcast to the output [{},{}]{}", c.shape(), m, n,
                  legacyExact ? " (opset 6 needs broadcast=1 to broadcast C)" : "");
  }
};

/// Gemm/MatMul + bias Add + activation folded into one product (GemmFusion pattern); no gradient (inference only).
class GemmFusedOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &a = inInfo(0), &b = inInfo(1);
    bool ta = attr<Attributes::Int>("transA", 0) != 0, tb = attr<Attributes::Int>("transB", 0) != 0;
    if (b.rank() != 2 || a.rank() < 2 || (ta && a.rank() != 2))
      throw error("GemmFused needs a 2-D B and an A of rank >= 2 (2 with transA), got A {} and B {}", a.shape(),
                  b.shape());
    int64_t k = ta ? a.dim(0) : a.dim(a.rank() - 1), kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
    if (k != kb) throw error("GemmFused inner dimensions differ: A' has {} columns, B' has {} rows", k, kb);
    Shape out = ta ? Shape{a.dim(1), n} : a.shape();
    out.back() = n;
    if (hasInput(2)) checkC(TensorInfo(a.dataType(), out).nelms() / std::max<int64_t>(n, 1), n, out.size());
    outInfo(0) = TensorInfo(a.dataType(), out);
  }

private:
  void checkC(int64_t rows, int64_t n, size_t outRank) const {
    const auto &c = inInfo(2);
    bool ok = c.dataType() == inInfo(0).dataType() && c.rank() <= 2;
    for (int64_t i = 0; ok && i < c.rank(); ++i) {
      int64_t d = c.shape()[c.rank() - 1 - i];
      ok = d == 1 || d == (i == 0 ? n : rows);
      if (i == 1 && outRank > 2) ok = d == 1;
    }
    if (!ok) throw error("input C {} cannot be broadcast to the [{}, {}] product", c.shape(), rows, n);
  }
};

std::vector<DataType> gemmTypes() {
  auto t = floatTypes();
  for (auto i : {DataType::INT32, DataType::INT64, DataType::UINT32, DataType::UINT64}) t.push_back(i);
  return t;
}

} // namespace

std::unique_ptr<Op> makeGemmFusedOp(const Op::Settings &settings, bool transA, bool transB, float alpha, float beta,
                                    GemmActivation activation) {
  auto op = std::make_unique<GemmFusedOp>(internalOp("GemmFused"), settings);
  op->attributes().setAttribute("transA", Attributes::Int(transA));
  op->attributes().setAttribute("transB", Attributes::Int(transB));
  op->attributes().setAttribute("alpha", alpha);
  op->attributes().setAttribute("beta", beta);
  op->attributes().setAttribute("activation", static_cast<Attributes::Int>(activation));
  return op;
}

POPART_REGISTER_OP(GemmOp, onnxOp("Gemm", {6, 7, 9, 11, 13}), gemmTypes());
POPART_REGISTER_OP(GemmGradOp, internalOp("GemmGrad"));
POPART_REGISTER_OP(GemmFusedOp, internalOp("GemmFused"));
} // namespace popart
