// Where (ai.onnx 9, 16): out = condition ? X : Y, numpy broadcasting of all three
// inputs; the output has X's type. Gradients WhereXGrad / WhereYGrad (inputs dY,
// condition): dX = reduce(c ? dy : 0), dY = reduce(c ? 0 : dy), summed over the dims
// X (Y) was broadcast along.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class WhereGradOp final : public Op {
public:
  WhereGradOp(const Op &fwd, InIndex arg)
      : Op(internalOp(arg == 1 ? "WhereXGrad" : "WhereYGrad"), fwd.settings), argInfo_(fwd.inInfo(arg)),
        toArg_{{0, arg}} {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override { return toArg_; }

private:
  TensorInfo argInfo_;
  std::map<int, int> toArg_;
};

class WhereOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0).dataType() != DataType::BOOL)
      throw error("condition must be BOOL, not {}", inInfo(0).data_type());
    if (inInfo(1).dataType() != inInfo(2).dataType())
      throw error("X and Y have different types: {} and {}", inInfo(1).data_type(), inInfo(2).data_type());
    outInfo(0) = TensorInfo(inInfo(1).dataType(), npOut(npOut(inShape(0), inShape(1)), inShape(2)));
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    const DataType t = inInfo(1).dataType();
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE) return v;
    for (InIndex i : {1, 2}) v.push_back(std::make_unique<WhereGradOp>(*this, i));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(WhereOp, onnxOp("Where", {9, 16}), {DataType::BOOL});
POPART_REGISTER_OP(WhereGradOp, internalOp("WhereXGrad"));
POPART_REGISTER_OP(WhereGradOp, internalOp("WhereYGrad"));
} // namespace popart
