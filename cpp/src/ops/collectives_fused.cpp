// ReplicatedAllReduceFused (internal): the gradient reductions of many weights
// in one collective. (x_0, ..., x_n-1) -> (y_0, ..., y_n-1), y_i = op over the
// replicas of the CommGroup of x_i, with the attributes of ReplicatedAllReduce
// (__collectiveOperator, __collectiveCommGroup, hostAllReduce). Inputs share one
// type. ReplicatedAllReduceFusedInplace writes each y_i into x_i.
#include "collectives.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class ReplicatedAllReduceFusedOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (input->n() == 0) throw error("needs at least one input");
    collectives::groupSize(*this);  // the group fits the replicas
    for (const auto &[i, t] : input->tensorMap()) {
      if (inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} has type {}, input 0 {}: the fused inputs share one type", i, inInfo(i).data_type(),
                    inInfo(0).data_type());
      outInfo(i) = inInfo(i);
    }
  }
  bool aliases(InIndex in, OutIndex out) const override { return inplace() && in == out; }
  bool modifies(InIndex) const override { return inplace(); }
  bool hasSideEffect() const override { return true; }  // every replica must take part

private:
  bool inplace() const { return opid.type == "ReplicatedAllReduceFusedInplace"; }
};

} // namespace
POPART_REGISTER_OP(ReplicatedAllReduceFusedOp, internalOp("ReplicatedAllReduceFused"));
POPART_REGISTER_OP(ReplicatedAllReduceFusedOp, internalOp("ReplicatedAllReduceFusedInplace"));
} // namespace popart
