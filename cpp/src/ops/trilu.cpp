// Trilu (ai.onnx 14): keeps the upper (upper = 1, default) or lower triangle of
// each matrix in the last two dimensions of x and zeroes the rest:
//   upper: y[..., i, j] = x[..., i, j] if j - i >= k else 0
//   lower: y[..., i, j] = x[..., i, j] if j - i <= k else 0
// k is the optional int64 scalar input 1 (default 0), read at run time.
// Gradient: dx = Trilu(dy) with the same k and upper (TriluGrad).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

void checkTriluAttributes(const Op &op) {
  const int64_t upper = op.attr<Attributes::Int>("upper", 1);
  if (upper != 0 && upper != 1) throw error("attribute upper must be 0 or 1, got {}", upper);
  if (op.hasInput(1) && (op.inInfo(1).dataType() != DataType::INT64 || op.inInfo(1).nelms() != 1))
    throw error("input 1 (k) must be an INT64 scalar, got {} {}", toString(op.inInfo(1).dataType()),
                op.inInfo(1).shapeString());
}

class TriluGradOp final : public Op {  // inputs: dY, k (optional)
public:
  explicit TriluGradOp(const Op &fwd) : Op(internalOp("TriluGrad"), fwd.settings) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> in{{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}};
    return in;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }
};

class TriluOp final : public Op {  // inputs: x, k (optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inRank(0) < 2) throw error("input 0 must have rank 2 or more, got shape {}", inInfo(0).shapeString());
    checkTriluAttributes(*this);
    outInfo(0) = inInfo(0);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<TriluGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(TriluOp, onnxOp("Trilu", {14}), allTypes());
POPART_REGISTER_OP(TriluGradOp, internalOp("TriluGrad"));
} // namespace popart
