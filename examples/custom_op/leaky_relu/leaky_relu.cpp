// LeakyRelu custom op (custom.ops, version 6):  y = x < 0 ? alpha * x : x.
// Gradient: dx = dy * (x < 0 ? alpha : 1).
// The PopART user guide's example (chapter 8), ported to popart-cpu: Op, GradOp,
// Opx and GradOpx, registered with OpCreator/OpxCreator when the library is loaded.
#include <popart/names.hpp>
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

#include <memory>
#include <vector>

namespace CustomOperators {
const popart::OperatorIdentifier LeakyRelu_6 = {"custom.ops", "LeakyRelu", 6};
} // namespace CustomOperators
namespace CustomGradOperators {
const popart::OperatorIdentifier LeakyReluGrad_6 = {"custom.ops", "LeakyReluGrad", 6};
} // namespace CustomGradOperators

namespace {

// ---------------------------------------------------------------- IR ops

class LeakyReluOp;

/// Inputs: dY (0), X (1). Output: dX (0).
class LeakyReluGradOp : public popart::Op {
public:
  explicit LeakyReluGradOp(const LeakyReluOp &fwdOp);
  LeakyReluGradOp(const popart::OperatorIdentifier &opid, float alpha,
                  const popart::Op::Settings &settings)
      : popart::Op(opid, settings), alpha(alpha) {}

  std::unique_ptr<popart::Op> clone() const final {
    return std::make_unique<LeakyReluGradOp>(*this);
  }
  void setup() final { outInfo(0) = inInfo(1); }

  /// Which forward tensors feed each grad input.
  const std::vector<popart::GradInOutMapper> &gradInputInfo() const final {
    static const std::vector<popart::GradInOutMapper> inInfo = {
        {0, 0, popart::GradOpInType::GradOut}, {1, 0, popart::GradOpInType::In}};
    return inInfo;
  }
  /// The grad op has one output: the gradient of the forward op's only input.
  const std::map<int, int> &gradOutToNonGradIn() const final {
    static const std::map<int, int> outInfo = {{0, 0}};
    return outInfo;
  }

  float getSubgraphValue() const final { return getLowSubgraphValue(); }
  float getAlpha() const { return alpha; }
  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    os.appendAttribute("alpha", getAlpha());
  }
  void appendOutlineAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendOutlineAttributes(os);
    os.appendAttribute("alpha", getAlpha());
  }

private:
  float alpha;
};

class LeakyReluOp : public popart::Op {
public:
  LeakyReluOp(const popart::OperatorIdentifier &opid, float alpha,
              const popart::Op::Settings &settings)
      : popart::Op(opid, settings), alpha(alpha) {}

  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<LeakyReluOp>(*this); }
  void setup() final { outInfo(0) = inInfo(0); }

  std::vector<std::unique_ptr<popart::Op>> getGradOps() final {
    std::vector<std::unique_ptr<popart::Op>> ops;
    ops.push_back(std::make_unique<LeakyReluGradOp>(*this));
    return ops;
  }

  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    os.appendAttribute("alpha", getAlpha());
  }
  void appendOutlineAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendOutlineAttributes(os);
    os.appendAttribute("alpha", getAlpha());
  }
  float getSubgraphValue() const final { return getLowSubgraphValue(); }
  bool requiresRandomSeed() const override { return false; }

  float getAlpha() const { return alpha; }

private:
  float alpha;
};

LeakyReluGradOp::LeakyReluGradOp(const LeakyReluOp &fwdOp)
    : popart::Op(CustomGradOperators::LeakyReluGrad_6, fwdOp.settings), alpha(fwdOp.getAlpha()) {}

// ---------------------------------------------------------------- CPU kernels (Opx)

/// Runs f(i) for every element index, split across the session's threads.
template <class F> void forEachElement(int64_t n, F f) {
  popart::popx::Opx::parallelFor(n, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

/// Calls f(T{}) with T the element type: float or float16_t (computed in float).
template <class F> void withFloatType(popart::DataType type, F f) {
  if (type == popart::DataType::FLOAT16) f(popart::float16_t{});
  else f(float{});
}

class LeakyReluOpx : public popart::popx::Opx {
public:
  LeakyReluOpx(popart::Op *op, popart::popx::Devicex *devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<LeakyReluOp>(op, {CustomOperators::LeakyRelu_6});
  }

  // Runs once when the session is prepared: takes the buffers' pointers and
  // appends the step that runs at every session.run().
  void grow(popart::popx::Sequence &prog) const final {
    float alpha = getOp<LeakyReluOp>().getAlpha();
    popart::popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    withFloatType(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *in = x.data<T>();
      T *out = y.data<T>();
      prog.add([in, out, n = y.nelms(), alpha] {
        forEachElement(n, [&](int64_t i) {
          float v = in[i];
          out[i] = T(v < 0.0f ? alpha * v : v);
        });
      });
    });
  }
};

class LeakyReluGradOpx : public popart::popx::Opx {
public:
  LeakyReluGradOpx(popart::Op *op, popart::popx::Devicex *devicex)
      : popart::popx::Opx(op, devicex) {
    verifyOp<LeakyReluGradOp>(op, {CustomGradOperators::LeakyReluGrad_6});
  }

  void grow(popart::popx::Sequence &prog) const final {
    float alpha = getOp<LeakyReluGradOp>().getAlpha();
    popart::popx::TensorView dy = getInTensor(0), x = getInTensor(1), dx = getOutTensor(0);
    withFloatType(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *grad = dy.data<T>(), *in = x.data<T>();
      T *out = dx.data<T>();
      prog.add([grad, in, out, n = dx.nelms(), alpha] {
        forEachElement(n, [&](int64_t i) {
          out[i] = T(float(grad[i]) * (float(in[i]) < 0.0f ? alpha : 1.0f));
        });
      });
    });
  }
};

// ---------------------------------------------------------------- registration

const popart::OpDefinition::DataTypes T = {popart::DataType::FLOAT16, popart::DataType::FLOAT};

const popart::OpDefinition leakyReluOpDef({popart::OpDefinition::Inputs({{"input", T}}),
                                           popart::OpDefinition::Outputs({{"output", T}}),
                                           popart::OpDefinition::Attributes({{"alpha", {"*"}}})});

float alphaOf(const popart::OpCreatorInfo &info) {
  // default alpha is 10**(-2)
  return info.attributes.getAttribute<popart::Attributes::Float>("alpha", 1e-2f);
}

popart::OpCreator<LeakyReluOp> leakyReluOpCreator(
    popart::OpDefinitions({{CustomOperators::LeakyRelu_6, leakyReluOpDef}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<LeakyReluOp>(info.opid, alphaOf(info), info.settings);
    },
    true);

// Grad ops are made by LeakyReluOp::getGradOps(). Registering the grad op too
// (not public) lets it be run on its own, e.g. to test LeakyReluGradOpx.
popart::OpCreator<LeakyReluGradOp> leakyReluGradOpCreator(
    popart::OpDefinitions({{CustomGradOperators::LeakyReluGrad_6,
                            popart::OpDefinition({{"gradient", T}, {"input", T}},
                                                 {{"output", T}}, {{"alpha", {"*"}}})}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<LeakyReluGradOp>(info.opid, alphaOf(info), info.settings);
    },
    false);

popart::popx::OpxCreator<LeakyReluOpx> leakyReluOpxCreator({CustomOperators::LeakyRelu_6});
popart::popx::OpxCreator<LeakyReluGradOpx>
    leakyReluGradOpxCreator({CustomGradOperators::LeakyReluGrad_6});

} // namespace
