// ScaleShift custom op (custom.ops, version 1):  y = scale * x + shift.
// Its in-place variant ScaleShiftInplace writes y over x; PopART's in-place
// pass picks it when nothing else reads x (x is an activation with one consumer).
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

#include <memory>
#include <tuple>
#include <vector>

namespace CustomOperators {
const popart::OperatorIdentifier ScaleShift_1 = {"custom.ops", "ScaleShift", 1};
const popart::OperatorIdentifier ScaleShiftInplace_1 = {"custom.ops", "ScaleShiftInplace", 1};
} // namespace CustomOperators

namespace {

class ScaleShiftOp : public popart::Op {
public:
  ScaleShiftOp(const popart::OperatorIdentifier &opid, float scale, float shift,
               const popart::Op::Settings &settings)
      : popart::Op(opid, settings), scale(scale), shift(shift) {}

  std::unique_ptr<popart::Op> clone() const override { return std::make_unique<ScaleShiftOp>(*this); }
  void setup() final { outInfo(0) = inInfo(0); }

  /// In-place variants this op can become, most preferred first.
  std::vector<std::tuple<popart::OperatorIdentifier, float>> inplacePriorityDefault() const override {
    return {{CustomOperators::ScaleShiftInplace_1, 10.0f}};
  }
  std::unique_ptr<popart::Op> getInplaceVariant(const popart::OperatorIdentifier &id) const override;

  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    os.appendAttribute("scale", scale);
    os.appendAttribute("shift", shift);
  }
  void appendOutlineAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendOutlineAttributes(os);
    os.appendAttribute("scale", scale);
    os.appendAttribute("shift", shift);
  }

  float getScale() const { return scale; }
  float getShift() const { return shift; }

private:
  float scale, shift;
};

/// Output 0 is input 0's memory, overwritten.
class ScaleShiftInplaceOp final : public ScaleShiftOp {
public:
  explicit ScaleShiftInplaceOp(const ScaleShiftOp &op)
      : ScaleShiftOp(CustomOperators::ScaleShiftInplace_1, op.getScale(), op.getShift(), op.settings) {
    attributes() = op.attributes();
  }

  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<ScaleShiftInplaceOp>(*this); }
  std::vector<std::tuple<popart::OperatorIdentifier, float>> inplacePriorityDefault() const final {
    return {};
  }
  bool aliases(popart::InIndex in, popart::OutIndex out) const final { return in == 0 && out == 0; }
  bool modifies(popart::InIndex in) const final { return in == 0; }
};

std::unique_ptr<popart::Op> ScaleShiftOp::getInplaceVariant(const popart::OperatorIdentifier &id) const {
  if (id == CustomOperators::ScaleShiftInplace_1) return std::make_unique<ScaleShiftInplaceOp>(*this);
  return Op::getInplaceVariant(id);
}

/// One Opx for both ops. The in-place op updates its input, then declares it
/// as the output (PopART's mapInPlace + setOutTensor idiom); that output is
/// the input's memory, so no copy happens.
class ScaleShiftOpx : public popart::popx::Opx {
public:
  ScaleShiftOpx(popart::Op *op, popart::popx::Devicex *devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<ScaleShiftOp>(op, {CustomOperators::ScaleShift_1, CustomOperators::ScaleShiftInplace_1});
  }

  void grow(popart::popx::Sequence &prog) const final {
    const auto &op = getOp<ScaleShiftOp>();
    bool inplace = op.opid == CustomOperators::ScaleShiftInplace_1;
    popart::popx::TensorView x = getInTensor(0);
    popart::popx::TensorView y = inplace ? x : getOutTensor(0);
    const float *in = x.data<float>();
    float *out = y.data<float>();
    prog.add([in, out, n = x.nelms(), a = op.getScale(), b = op.getShift()] {
      parallelFor(n, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = a * in[i] + b;
      });
    });
    if (inplace) setOutTensor(0, x);
  }
};

const popart::OpDefinition::DataTypes T = {popart::DataType::FLOAT};
const popart::OpDefinition scaleShiftDef({{"input", T}}, {{"output", T}},
                                         {{"scale", {"*"}}, {"shift", {"*"}}});

popart::OpCreator<ScaleShiftOp> scaleShiftOpCreator(
    popart::OpDefinitions({{CustomOperators::ScaleShift_1, scaleShiftDef}}),
    [](const popart::OpCreatorInfo &info) {
      float scale = info.attributes.getAttribute<popart::Attributes::Float>("scale", 1.0f);
      float shift = info.attributes.getAttribute<popart::Attributes::Float>("shift", 0.0f);
      return std::make_unique<ScaleShiftOp>(info.opid, scale, shift, info.settings);
    },
    true);

popart::popx::OpxCreator<ScaleShiftOpx> scaleShiftOpxCreator(
    {CustomOperators::ScaleShift_1, CustomOperators::ScaleShiftInplace_1});

} // namespace
