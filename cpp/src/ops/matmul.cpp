// MatMul (ai.onnx 1, 9, 13): numpy matmul, Y[..., m, n] = sum_k A[..., m, k] * B[..., k, n],
// with 1-D promotion and broadcasting of the batch dimensions.
// MatMulRhsGradAccumulate: accumulator += A^T dY (a MatMulRhsGrad fused with its gradient accumulation).
// Gradients: dA = dY B^T (MatMulLhsGrad), dB = A^T dY (MatMulRhsGrad), each summed over the
// batch dimensions its operand was broadcast along; 1-D operands drop the promoted dim again.
#include "matmul_shape.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>

namespace popart {

int64_t MatMulGeometry::batchSize() const {
  int64_t s = 1;
  for (auto d : batch) s *= d;
  return s;
}

MatMulGeometry matmulGeometry(const Shape &a, const Shape &b) {
  if (a.empty() || b.empty()) throw error("MatMul operands must have rank >= 1 (got ranks {} and {})", a.size(), b.size());
  Shape pa = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape pb = b.size() == 1 ? Shape{b[0], 1} : b;
  MatMulGeometry g;
  g.m = pa[pa.size() - 2];
  g.k = pa.back();
  g.n = pb.back();
  if (pb[pb.size() - 2] != g.k)
    throw error("MatMul contraction dimensions differ: A {} has {} columns, B {} has {} rows", a, g.k, b,
                pb[pb.size() - 2]);
  size_t rank = std::max(pa.size(), pb.size()) - 2;
  g.batchA.assign(rank - (pa.size() - 2), 1);
  g.batchA.insert(g.batchA.end(), pa.begin(), pa.end() - 2);
  g.batchB.assign(rank - (pb.size() - 2), 1);
  g.batchB.insert(g.batchB.end(), pb.begin(), pb.end() - 2);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = g.batchA[i], y = g.batchB[i];
    if (x != y && x != 1 && y != 1)
      throw error("MatMul batch dimensions of A {} and B {} cannot be broadcast", a, b);
    g.batch.push_back(x == 1 ? y : x);
  }
  g.out = g.batch;
  if (a.size() > 1) g.out.push_back(g.m);
  if (b.size() > 1) g.out.push_back(g.n);
  return g;
}

namespace {

/// MatMulLhsGrad: inputs dY (0), B (1) -> dA. MatMulRhsGrad: inputs dY (0), A (1) -> dB.
/// The kernel reads the forward geometry from the other operand's shape and its own output's.
class MatMulGradOp final : public Op {
public:
  MatMulGradOp(const Op &fwd, InIndex arg)
      : Op(internalOp(arg == 0 ? "MatMulLhsGrad" : "MatMulRhsGrad"), fwd.settings), arg_(arg),
        argInfo_(fwd.inInfo(arg)) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = argInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    using G = GradOpInType;
    static const std::vector<GradInOutMapper> lhs{{0, 0, G::GradOut}, {1, 1, G::In}};
    static const std::vector<GradInOutMapper> rhs{{0, 0, G::GradOut}, {1, 0, G::In}};
    return arg_ == 0 ? lhs : rhs;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> toA{{0, 0}}, toB{{0, 1}};
    return arg_ == 0 ? toA : toB;
  }

private:
  InIndex arg_;
  TensorInfo argInfo_;
};

class MatMulOp final : public Op {  // inputs: A (0), B (1)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> ops;
    for (InIndex arg : {0, 1}) ops.push_back(std::make_unique<MatMulGradOp>(*this, arg));
    return ops;
  }
  void setup() override {
    const auto &a = inInfo(0), &b = inInfo(1);
    if (a.dataType() != b.dataType())
      throw error("inputs have different types: {} and {}", a.data_type(), b.data_type());
    outInfo(0) = TensorInfo(a.dataType(), matmulGeometry(a.shape(), b.shape()).out);
  }
};

/// MatMulRhsGradAccumulate (made by the optimizer transform from a MatMulRhsGrad whose result only a gradient
/// accumulation reads): inputs dY (0), A (1) and the accumulator (2) -> accumulator + A^T dY, in place (no
/// weight-sized gradient is written and read back).
class MatMulRhsGradAccumulateOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(2); }
  bool aliases(InIndex in, OutIndex out) const override { return in == 2 && out == 0; }
  bool modifies(InIndex in) const override { return in == 2; }
  bool hasSideEffect() const override { return true; }
};

std::vector<DataType> matmulTypes() {
  auto t = floatTypes();
  for (auto i : {DataType::INT32, DataType::INT64, DataType::UINT32, DataType::UINT64}) t.push_back(i);
  return t;
}

} // namespace
POPART_REGISTER_OP(MatMulOp, onnxOp("MatMul", {1, 9, 13}), matmulTypes());
POPART_REGISTER_OP(MatMulGradOp, internalOp("MatMulLhsGrad"));
POPART_REGISTER_OP(MatMulGradOp, internalOp("MatMulRhsGrad"));
POPART_REGISTER_OP(MatMulRhsGradAccumulateOp, internalOp("MatMulRhsGradAccumulate"));
} // namespace popart
