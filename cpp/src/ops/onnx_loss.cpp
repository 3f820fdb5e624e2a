// ONNX losses over x[N, C, d1..dk] with integer targets t[N, d1..dk] and
// optional class weights w[C] (ignore_index: targets equal to it count zero).
//   NegativeLogLikelihoodLoss (ai.onnx 12, 13, 22): l[n, d] = -x[n, t[n, d], d] * w[t[n, d]].
//   SoftmaxCrossEntropyLoss (ai.onnx 12, 13): the same loss on log_prob =
//     LogSoftmax(x, axis 1), which is the optional output 1.
// reduction "none" keeps l, "sum" sums it, "mean" divides the sum by the sum of
// the weights of the counted targets.
// Gradient (inputs dL, x, t[, w]), with s = dL[n, d] (none), dL (sum) or dL / sum(w)
// (mean) and w_t the target's weight (0 when ignored):
//   NLL: dx[n, c, d] = -w_t s [c == t];  SCE: dx[n, c, d] = w_t s (softmax(x)[n, c, d] - [c == t]).
// The log_prob output of SoftmaxCrossEntropyLoss passes no gradient back.
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

/// Inputs dL, x, target[, weight]; output dx. Keeps the forward's attributes.
class OnnxLossGradOp final : public Op {
public:
  explicit OnnxLossGradOp(const Op &fwd)
      : Op(internalOp(fwd.opid.type + "Grad"), fwd.settings), xInfo_(fwd.inInfo(0)),
        ins_{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}} {
    attributes() = fwd.attributes();
    if (fwd.hasInput(2)) ins_.push_back({3, 2, GradOpInType::In});
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = xInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> toX{{0, 0}};
    return toX;
  }

private:
  TensorInfo xInfo_;
  std::vector<GradInOutMapper> ins_;
};

class NegativeLogLikelihoodLossOp final : public OnnxLossOp {
public:
  using OnnxLossOp::OnnxLossOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<OnnxLossGradOp>(*this); }
};

class SoftmaxCrossEntropyLossOp final : public OnnxLossOp {
public:
  using OnnxLossOp::OnnxLossOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<OnnxLossGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(NegativeLogLikelihoodLossOp, onnxOp("NegativeLogLikelihoodLoss", {12, 13, 22}), floatTypes());
POPART_REGISTER_OP(SoftmaxCrossEntropyLossOp, onnxOp("SoftmaxCrossEntropyLoss", {12, 13}), floatTypes());
POPART_REGISTER_OP(OnnxLossGradOp, internalOp("NegativeLogLikelihoodLossGrad"));
POPART_REGISTER_OP(OnnxLossGradOp, internalOp("SoftmaxCrossEntropyLossGrad"));
} // namespace popart
