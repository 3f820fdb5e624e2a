// Training ops created by the optimizer transform (internal, not importable):
//   OptimizerVarUpdate(w, g, hyper, state...) -> w'   (updates w and state in place)
//   GradAccumulate(accum, g) -> accum'                 (accum += g, in place)
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class OptimizerVarUpdateOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0).shape() != inInfo(1).shape())
      throw error("weight {} and gradient {} differ in shape", inInfo(0).shapeString(), inInfo(1).shapeString());
    outInfo(0) = inInfo(0);
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  bool modifies(InIndex in) const override {
    return in == 0 || in >= 3 || (in == 1 && attr<Attributes::Int>("zeroGradient", 0) != 0);
  }
  bool hasSideEffect() const override { return true; }
};

class GradAccumulateOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0).shape() != inInfo(1).shape())
      throw error("accumulator {} and gradient {} differ in shape", inInfo(0).shapeString(), inInfo(1).shapeString());
    outInfo(0) = inInfo(0);
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return in == 0; }
  bool hasSideEffect() const override { return true; }
};

} // namespace
POPART_REGISTER_OP(OptimizerVarUpdateOp, internalOp("OptimizerVarUpdate"));
POPART_REGISTER_OP(GradAccumulateOp, internalOp("GradAccumulate"));
} // namespace popart
