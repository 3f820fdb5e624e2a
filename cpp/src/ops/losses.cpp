// Losses (ai.graphcore 1). Reduction: 0 Sum, 1 Mean, 2 NoReduction.
//   Nll(probs[..., C], label[...]): -log(p[label]) (or -p[label] for log-probabilities), ignoreIndex skipped;
//     Mean divides by the number of non-ignored labels.
//   L1(x): lambda * |x|.   IdentityLoss(x): x.   Gradients: NllGrad, L1Grad, IdentityLossGrad.
#include "loss_reduction.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

enum Reduction : int64_t { Sum = 0, Mean = 1, NoReduction = 2 };

int64_t reductionOf(const Op &op) { return lossReduction(op); }

/// Output of a reduced loss: scalar, or the per-sample shape for NoReduction.
TensorInfo lossInfo(const Op &op, const Shape &perSample, DataType t) {
  return TensorInfo(t, reductionOf(op) == NoReduction ? perSample : Shape{});
}

template <class Fwd> class LossGradOp : public Op {
public:
  LossGradOp(const OperatorIdentifier &id, const Op &fwd, std::vector<GradInOutMapper> in, std::map<int, int> out)
      : Op(id, fwd.settings), in_(std::move(in)), out_(std::move(out)) {
    attributes() = fwd.attributes();
  }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return in_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return out_; }

private:
  std::vector<GradInOutMapper> in_;
  std::map<int, int> out_;
};

class NllOp;
class NllGradOp final : public LossGradOp<NllOp> {  // inputs: dL (0), probs (1), label (2)
public:
  explicit NllGradOp(const Op &fwd)
      : LossGradOp(internalOp("NllGrad"), fwd,
                   {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}}, {{0, 0}}) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
};

class NllOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool isLossOp() const override { return true; }
  void setup() override {
    const auto &p = inInfo(0), &l = inInfo(1);
    if (p.rank() < 1 || l.rank() != p.rank() - 1)
      throw error("probs {} and label {}: the label must have the shape of probs without its last (class) dimension",
                  p.shapeString(), l.shapeString());
    for (int64_t i = 0; i < l.rank(); ++i)
      if (l.shape()[i] != p.shape()[i])
        throw error("probs {} and label {} differ in dimension {}", p.shapeString(), l.shapeString(), i);
    if (l.dataType() != DataType::INT32 && l.dataType() != DataType::INT64 && l.dataType() != DataType::UINT32)
      throw error("label must be INT32, UINT32 or INT64, got {}", l.data_type());
    outInfo(0) = lossInfo(*this, l.shape(), p.dataType());
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<NllGradOp>(*this); }
};

class L1GradOp final : public LossGradOp<Op> {  // inputs: dL (0), x (1)
public:
  explicit L1GradOp(const Op &fwd)
      : LossGradOp(internalOp("L1Grad"), fwd, {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}}, {{0, 0}}) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
};

class L1Op final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool isLossOp() const override { return true; }
  void setup() override {
    attr<Attributes::Float>("lambda");
    outInfo(0) = lossInfo(*this, inInfo(0).shape(), inInfo(0).dataType());
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<L1GradOp>(*this); }
};

class IdentityLossGradOp final : public LossGradOp<Op> {  // inputs: dL (0), x (1) for its shape
public:
  explicit IdentityLossGradOp(const Op &fwd)
      : LossGradOp(internalOp("IdentityLossGrad"), fwd, {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}},
                   {{0, 0}}) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
};

class IdentityLossOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool isLossOp() const override { return true; }
  void setup() override { outInfo(0) = lossInfo(*this, inInfo(0).shape(), inInfo(0).dataType()); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<IdentityLossGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(NllOp, graphcoreOp("Nll"), floatTypes());
POPART_REGISTER_OP(NllGradOp, internalOp("NllGrad"));
POPART_REGISTER_OP(L1Op, graphcoreOp("L1"), floatTypes());
POPART_REGISTER_OP(L1GradOp, internalOp("L1Grad"));
POPART_REGISTER_OP(IdentityLossOp, graphcoreOp("IdentityLoss"), floatTypes());
POPART_REGISTER_OP(IdentityLossGradOp, internalOp("IdentityLossGrad"));
} // namespace popart
