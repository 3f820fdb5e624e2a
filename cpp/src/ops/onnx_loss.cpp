// ONNX losses over x[N, C, d1..dk] with integer targets t[N, d1..dk] and
// optional class weights w[C] (ignore_index: targets equal to it count zero).
//   NegativeLogLikelihoodLoss (ai.onnx 12, 13, 22): l[n, d] = -x[n, t[n, d], d] * w[t[n, d]].
//   SoftmaxCrossEntropyLoss (ai.onnx 12, 13): the same loss on log_prob =
//     LogSoftmax(x, axis 1), which is the optional output 1.
// reduction "none" keeps l, "sum" sums it, "mean" divides the sum by the sum of
// the weights of the counted targets. No gradient (inference only).
#include "onnx_loss.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

OnnxLossReduction onnxLossReduction(const Op &op) {
  const auto r = op.attr<Attributes::String>("reduction", "mean");
  if (r == "none") return OnnxLossReduction::None;
  if (r == "sum") return OnnxLossReduction::Sum;
  if (r == "mean") return OnnxLossReduction::Mean;
  throw error("{}: attribute reduction must be 'none', 'sum' or 'mean', got '{}'", op.opid.type, r);
}

namespace {

class OnnxLossOp : public Op {
public:
  using Op::Op;
  void setup() override {
    const auto &x = inInfo(0), &t = inInfo(1);
    if (x.rank() < 2) throw error("input 0 must have shape [N, C, d1..dk], got {}", x.shapeString());
    if (t.dataType() != DataType::INT32 && t.dataType() != DataType::INT64)
      throw error("input 1 (target) must be INT32 or INT64, got {}", toString(t.dataType()));
    Shape perSample = x.shape();
    perSample.erase(perSample.begin() + 1);
    if (t.shape() != perSample)
      throw error("input 1 (target) must have shape {} (input 0 without dimension 1), got {}",
                  TensorInfo(t.dataType(), perSample).shapeString(), t.shapeString());
    if (hasInput(2) && (inShape(2) != Shape{x.shape()[1]} || inInfo(2).dataType() != x.dataType()))
      throw error("input 2 (weight) must be a {} vector of length C = {}, got {} {}", toString(x.dataType()),
                  x.shape()[1], toString(inInfo(2).dataType()), inInfo(2).shapeString());
    outInfo(0) = TensorInfo(x.dataType(), onnxLossReduction(*this) == OnnxLossReduction::None ? perSample : Shape{});
    if (hasOutput(1)) outInfo(1) = x;
  }
};

class NegativeLogLikelihoodLossOp final : public OnnxLossOp {
public:
  using OnnxLossOp::OnnxLossOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class SoftmaxCrossEntropyLossOp final : public OnnxLossOp {
public:
  using OnnxLossOp::OnnxLossOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

} // namespace
POPART_REGISTER_OP(NegativeLogLikelihoodLossOp, onnxOp("NegativeLogLikelihoodLoss", {12, 13, 22}), floatTypes());
POPART_REGISTER_OP(SoftmaxCrossEntropyLossOp, onnxOp("SoftmaxCrossEntropyLoss", {12, 13}), floatTypes());
} // namespace popart
