// Max, Min (ai.onnx 1, 6, 8, 12, 13), Sum, Mean (1, 6, 8, 13): y = fold of f over
// 1..N inputs, numpy broadcasting from opset 8 (before: equal shapes).
// Gradients "<Type>ArgGrad" per input k (attribute `arg`), summed over k's broadcast
// dims: Sum dy, Mean dy / N, Max/Min dy [x_k == y] / #{j : x_j == y} (ties share the
// gradient equally, as torch.amax over the stacked inputs). Inputs dY, then for
// Max/Min Y and every forward input.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class VariadicGradOp final : public Op {
public:
  VariadicGradOp(const Op &fwd, InIndex arg)
      : Op(internalOp(fwd.opid.type + "ArgGrad"), fwd.settings), argInfo_(fwd.inInfo(arg)), toArg_{{0, arg}} {
    using G = GradOpInType;
    attributes().setAttribute("arg", int64_t(arg));
    attributes().setAttribute("n", int64_t(fwd.input->n()));
    gradIn_ = {{0, 0, G::GradOut}};
    if (fwd.opid.type == "Max" || fwd.opid.type == "Min") {
      gradIn_.push_back({1, 0, G::Out});
      for (InIndex i = 0; i < fwd.input->n(); ++i) gradIn_.push_back({i + 2, i, G::In});
    }
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return gradIn_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return toArg_; }

private:
  TensorInfo argInfo_;
  std::vector<GradInOutMapper> gradIn_;
  std::map<int, int> toArg_;
};

class VariadicOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int n = input->n();
    if (n == 0) throw error("needs at least one input");
    Shape shape = inShape(0);
    for (int i = 1; i < n; ++i) {
      if (inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} has type {}, input 0 has {}", i, inInfo(i).data_type(), inInfo(0).data_type());
      if (opid.version < 8 && inShape(i) != inShape(0))
        throw error("input {} has shape {}, input 0 has {} (broadcasting needs opset 8)", i, inShape(i), inShape(0));
      shape = npOut(shape, inShape(i));
    }
    outInfo(0) = TensorInfo(inInfo(0).dataType(), shape);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    const DataType t = inInfo(0).dataType();
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE) return v;
    for (InIndex i = 0; i < input->n(); ++i) v.push_back(std::make_unique<VariadicGradOp>(*this, i));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(VariadicOp, onnxOp("Max", {1, 6, 8, 12, 13}), numericTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Min", {1, 6, 8, 12, 13}), numericTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Sum", {1, 6, 8, 13}), floatTypes());
POPART_REGISTER_OP(VariadicOp, onnxOp("Mean", {1, 6, 8, 13}), floatTypes());
POPART_REGISTER_OP(VariadicGradOp, internalOp("MaxArgGrad"));
POPART_REGISTER_OP(VariadicGradOp, internalOp("MinArgGrad"));
POPART_REGISTER_OP(VariadicGradOp, internalOp("SumArgGrad"));
POPART_REGISTER_OP(VariadicGradOp, internalOp("MeanArgGrad"));
} // namespace popart
