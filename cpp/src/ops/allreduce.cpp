// AllReduce (ai.graphcore, opset 1): the reduction of N tensors, one per IPU
// (virtual graph) of a replica, handed to every IPU. Inputs x_0 .. x_{N-1} of
// one type and shape; outputs y_0 .. y_{N-1}, each y_i = op(x_0, ..., x_{N-1}),
// op the attribute __collectiveOperator (Add 0 default, Mean 1, Mul 2, Min 3,
// Max 4; Min/Max propagate NaN). Optional attribute `ipus`: the IPU of each
// input (N distinct values >= 0). On the CPU the IPUs share memory, so the
// kernel reduces once and copies.
//   identicalInputs = 1: the inputs are equal by contract, so y_i = x_i.
//   identicalGradInputs = 1: the outputs' gradients are equal by contract.
// Gradient (AllReduceGrad; Add and Mean only): dx_j = op(dy_0, ..., dy_{N-1})
// with Add or Mean, the AllReduce of the gradients; dx_j = dy_j when
// identicalGradInputs. Absent output gradients count as zeros.
#include "ops/allreduce.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <set>

namespace popart {
namespace allreduce {

int64_t reduction(const Op &op) { return op.attr<Attributes::Int>("__collectiveOperator", allreduce::kAdd); }

bool passesThrough(const Op &op) {
  return op.attr<Attributes::Int>(op.opid.type == "AllReduceGrad" ? "identicalGradInputs" : "identicalInputs", 0) != 0;
}

} // namespace allreduce

namespace {

/// Checks that `op`'s N inputs share one type and shape and gives each output that info.
void setupLikeInputs(Op &op) {
  const int n = op.input->n();
  if (n == 0 || op.input->maxIndex() != n) throw error("{} needs inputs 0 .. N-1, got {}", op.debugName(), n);
  const TensorInfo &first = op.inInfo(0);
  for (InIndex i = 1; i < n; ++i)
    if (op.inInfo(i) != first)
      throw error("{}: input {} is {} {}, input 0 is {} {}: every IPU's tensor must have one type and shape",
                  op.debugName(), i, op.inInfo(i).data_type(), op.inInfo(i).shape(), first.data_type(),
                  first.shape());
  for (OutIndex i = 0; i < n; ++i) op.outInfo(i) = first;
}

class AllReduceGradOp final : public Op {
public:
  explicit AllReduceGradOp(const Op &fwd) : Op(internalOp("AllReduceGrad"), fwd.settings) {
    attributes() = fwd.attributes();
    for (int i = 0; i < fwd.input->n(); ++i) {
      ins_.push_back({i, i, GradOpInType::GradOut});
      outs_[i] = i;
    }
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { setupLikeInputs(*this); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return ins_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }

private:
  std::vector<GradInOutMapper> ins_;
  std::map<int, int> outs_;
};

class AllReduceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t r = allreduce::reduction(*this);
    if (r < allreduce::kAdd || r > allreduce::kMax)
      throw error("{}: __collectiveOperator {} is not one of Add (0), Mean (1), Mul (2), Min (3), Max (4)",
                  debugName(), r);
    setupLikeInputs(*this);
    const auto ipus = attr<Attributes::Ints>("ipus", {});
    if (ipus.empty()) return;
    if (static_cast<int>(ipus.size()) != input->n())
      throw error("{}: {} inputs but {} ipus", debugName(), input->n(), ipus.size());
    std::set<int64_t> seen;
    for (int64_t ipu : ipus)
      if (ipu < 0 || !seen.insert(ipu).second)
        throw error("{}: ipus must be distinct and >= 0, got {}", debugName(), ipus);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    const int64_t r = allreduce::reduction(*this);
    if (r != allreduce::kAdd && r != allreduce::kMean)
      throw error("{}: an AllReduce with operator {} has no gradient (only Add and Mean have)", debugName(), r);
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<AllReduceGradOp>(*this));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(AllReduceOp, graphcoreOp("AllReduce"), numericTypes());
POPART_REGISTER_OP(AllReduceGradOp, internalOp("AllReduceGrad"));
} // namespace popart
