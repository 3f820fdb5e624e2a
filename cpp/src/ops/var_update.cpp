// The var-update ops of PopXL (see var_update.hpp for inputs and formulas): Accumulate,
// SparseAccumulate, AccumulatorScale, AdamUpdater, AdamVarUpdate and LambSquare. Each checks
// its inputs' types and shapes here, so bad input fails when the op is created, naming the input.
#include "ops/var_update.hpp"
#include "popart/adam.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

using namespace varupdate;

bool isComputeFloat(DataType t) { return t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE; }

void checkFloat(const Op &op, InIndex i, const char *what) {
  if (!isComputeFloat(op.inInfo(i).dataType()))
    throw error("{} (input {}, '{}') is {}: expected FLOAT, FLOAT16 or DOUBLE", what, i, op.inId(i),
                op.inInfo(i).toString());
}

/// An optional scalar hyper-parameter input: one float value when present.
void checkOptionalScalar(const Op &op, InIndex i, const char *what) {
  if (!op.hasInput(i)) return;
  checkFloat(op, i, what);
  if (op.inInfo(i).nelms() != 1)
    throw error("{} (input {}, '{}') must hold one value, got shape {}", what, i, op.inId(i), op.inShape(i));
}

void checkSameShape(const Op &op, InIndex a, InIndex b, const char *whatA, const char *whatB) {
  if (op.inShape(a) != op.inShape(b))
    throw error("{} '{}' has shape {} but {} '{}' has shape {}: they must match (no broadcasting)", whatB, op.inId(b),
                op.inShape(b), whatA, op.inId(a), op.inShape(a));
}

/// Base of the ops that update input 0 in place and return it.
class InplaceUpdateOp : public Op {
public:
  using Op::Op;
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return in == 0; }
  bool hasSideEffect() const override { return true; }
};

AccumulationType accumulationType(const Op &op) {
  const int64_t t = op.attr<Attributes::Int>("type", 0);
  if (t < 0 || t >= static_cast<int64_t>(AccumulationType::N))
    throw error("attribute 'type' is {}: not an AccumulationType (0 .. {})", t,
                static_cast<int64_t>(AccumulationType::N) - 1);
  return static_cast<AccumulationType>(t);
}

class AccumulateOp final : public InplaceUpdateOp {
public:
  using InplaceUpdateOp::InplaceUpdateOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    accumulationType(*this);
    checkFloat(*this, accumulate::kAccum, "accumulator");
    checkFloat(*this, accumulate::kUpdater, "updater");
    checkSameShape(*this, accumulate::kAccum, accumulate::kUpdater, "accumulator", "updater");
    checkOptionalScalar(*this, accumulate::kFactor, "factor");
    outInfo(0) = inInfo(0);
  }
};

class SparseAccumulateOp final : public InplaceUpdateOp {
public:
  using InplaceUpdateOp::InplaceUpdateOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto type = accumulationType(*this);
    if (type != AccumulationType::Add && type != AccumulationType::DampenedAdd)
      throw error("attribute 'type' is {}: SparseAccumulate supports Add (0) and DampenedAdd (1)",
                  static_cast<int64_t>(type));
    checkFloat(*this, sparse::kAccum, "accumulator");
    checkFloat(*this, sparse::kUpdater, "updater");
    checkOptionalScalar(*this, sparse::kFactor, "factor");
    if (!hasInput(sparse::kIndices)) throw error("the indices (input {}) are missing", sparse::kIndices);
    const DataType it = inInfo(sparse::kIndices).dataType();
    if (it != DataType::INT32 && it != DataType::INT64 && it != DataType::UINT32)
      throw error("indices '{}' are {}: expected INT32, UINT32 or INT64", inId(sparse::kIndices),
                  inInfo(sparse::kIndices).toString());
    const Shape &a = inShape(sparse::kAccum);
    int64_t axis = attr<Attributes::Int>("axis", 0);
    if (axis < -static_cast<int64_t>(a.size()) || axis >= static_cast<int64_t>(a.size()))
      throw error("attribute 'axis' is {}: out of range for accumulator '{}' of rank {}", axis, inId(0), a.size());
    if (axis < 0) axis += static_cast<int64_t>(a.size());
    Shape want(a.begin(), a.begin() + axis);
    const Shape &idx = inShape(sparse::kIndices);
    want.insert(want.end(), idx.begin(), idx.end());
    want.insert(want.end(), a.begin() + axis + 1, a.end());
    if (inShape(sparse::kUpdater) != want)
      throw error("updater '{}' has shape {}; accumulator {} gathered along axis {} with indices {} gives {}",
                  inId(sparse::kUpdater), inShape(sparse::kUpdater), a, axis, idx, want);
    outInfo(0) = inInfo(0);
  }
};

class AccumulatorScaleOp final : public InplaceUpdateOp {
public:
  using InplaceUpdateOp::InplaceUpdateOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat(*this, scale::kAccum, "accumulator");
    checkOptionalScalar(*this, scale::kFactor, "factor");
    outInfo(0) = inInfo(0);
  }
};

class AdamUpdaterOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  AdamMode mode() const {
    const int64_t m = attr<Attributes::Int>("mode", 0);
    if (m < 0 || m > static_cast<int64_t>(AdamMode::LambNoBias))
      throw error("attribute 'mode' is {}: not an AdamMode (0 Adam .. 4 LambNoBias)", m);
    return static_cast<AdamMode>(m);
  }
  bool biasCorrection() const {
    const AdamMode m = mode();
    return m == AdamMode::Adam || m == AdamMode::Lamb || m == AdamMode::AdaMax;
  }
  void setup() override {
    checkFloat(*this, adam::kM, "first-order accumulator");
    checkFloat(*this, adam::kV, "second-order accumulator");
    checkSameShape(*this, adam::kM, adam::kV, "first-order accumulator", "second-order accumulator");
    if (hasInput(adam::kWeight)) {
      checkFloat(*this, adam::kWeight, "weight");
      checkSameShape(*this, adam::kM, adam::kWeight, "first-order accumulator", "weight");
    }
    if (biasCorrection()) {
      if (!hasInput(adam::kStep))
        throw error("mode {} corrects bias: the time step (input {}) is required", attr<Attributes::Int>("mode", 0),
                    adam::kStep);
      checkOptionalScalar(*this, adam::kStep, "time step");
    }
    checkOptionalScalar(*this, adam::kWd, "weight decay");
    checkOptionalScalar(*this, adam::kBeta1, "beta1");
    checkOptionalScalar(*this, adam::kBeta2, "beta2");
    checkOptionalScalar(*this, adam::kEps, "epsilon");
    const bool decay = hasInput(adam::kWd) || attr<Attributes::Float>("weightDecay", 0.0f) != 0.0f;
    if (decay && !hasInput(adam::kWeight)) throw error("weight decay needs the weight (input {})", adam::kWeight);
    outInfo(0) = inInfo(adam::kM);
  }
  bool modifies(InIndex in) const override { return in == adam::kStep && hasInput(adam::kStep); }
  bool hasSideEffect() const override { return hasInput(adam::kStep); }
};

class AdamVarUpdateOp final : public InplaceUpdateOp {
public:
  using InplaceUpdateOp::InplaceUpdateOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat(*this, adamvar::kWeight, "weight");
    checkFloat(*this, adamvar::kUpdater, "updater");
    checkSameShape(*this, adamvar::kWeight, adamvar::kUpdater, "weight", "updater");
    if (hasInput(adamvar::kR1Sq) != hasInput(adamvar::kR2Sq))
      throw error("give both squared norms r1 (input {}) and r2 (input {}), or neither", adamvar::kR1Sq,
                  adamvar::kR2Sq);
    checkOptionalScalar(*this, adamvar::kR1Sq, "r1 (squared weight norm)");
    checkOptionalScalar(*this, adamvar::kR2Sq, "r2 (squared updater norm)");
    checkOptionalScalar(*this, adamvar::kLr, "learning rate");
    checkOptionalScalar(*this, adamvar::kMwn, "max weight norm");
    outInfo(0) = inInfo(0);
  }
};

/// LambSquare(x) -> sum(x^2) as a FLOAT scalar (summed in double).
class LambSquareOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    checkFloat(*this, 0, "input");
    outInfo(0) = TensorInfo(DataType::FLOAT, {});
  }
};

} // namespace
POPART_REGISTER_OP(AccumulateOp, internalOp("Accumulate"));
POPART_REGISTER_OP(SparseAccumulateOp, internalOp("SparseAccumulate"));
POPART_REGISTER_OP(AccumulatorScaleOp, internalOp("AccumulatorScale"));
POPART_REGISTER_OP(AdamUpdaterOp, internalOp("AdamUpdater"));
POPART_REGISTER_OP(AdamVarUpdateOp, internalOp("AdamVarUpdate"));
POPART_REGISTER_OP(LambSquareOp, internalOp("LambSquare"));
} // namespace popart
