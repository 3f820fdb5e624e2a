// Test library: registers a custom op under a built-in identifier (ai.onnx
// Relu:6) with an Opx, and an Opx alone for ai.onnx Sigmoid. Loading it must not
// abort the process; using Relu or Sigmoid afterwards raises an error naming both
// registrations.
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

namespace {

const popart::OperatorIdentifier Relu_6 = {"ai.onnx", "Relu", 6};

class CollidingReluOp : public popart::Op {
public:
  using popart::Op::Op;
  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<CollidingReluOp>(*this); }
  void setup() final { outInfo(0) = inInfo(0); }
};

class CollidingReluOpx : public popart::popx::Opx {
public:
  using popart::popx::Opx::Opx;
  void grow(popart::popx::Sequence &) const final {}
};

popart::OpCreator<CollidingReluOp> opCreator(
    popart::OpDefinitions({{Relu_6, popart::OpDefinition({{"input", {}}}, {{"output", {}}}, {})}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<CollidingReluOp>(info.opid, info.settings);
    });
popart::popx::OpxCreator<CollidingReluOpx> opxCreator(Relu_6);

class CollidingSigmoidOpx : public CollidingReluOpx {
public:
  using CollidingReluOpx::CollidingReluOpx;
};
popart::popx::OpxCreator<CollidingSigmoidOpx> sigmoidOpxCreator(
    popart::OperatorIdentifier{"ai.onnx", "Sigmoid", 6});

} // namespace
