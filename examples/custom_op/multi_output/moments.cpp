// Moments custom op (custom.ops, version 1), two outputs:
//   mean = sum(x, axis) / n,   var = sum((x - mean)^2, axis) / (n - unbiased).
// Outputs have the input's shape without `axis`; sums are accumulated in double.
#include <popart/error.hpp>
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

#include <memory>

namespace CustomOperators {
const popart::OperatorIdentifier Moments_1 = {"custom.ops", "Moments", 1};
} // namespace CustomOperators

namespace {

class MomentsOp : public popart::Op {
public:
  MomentsOp(const popart::OperatorIdentifier &opid, int64_t axis, bool unbiased,
            const popart::Op::Settings &settings)
      : popart::Op(opid, settings), axis(axis), unbiased(unbiased) {}

  std::unique_ptr<popart::Op> clone() const final { return std::make_unique<MomentsOp>(*this); }

  // Both outputs: the input's type, with dimension `axis` removed.
  void setup() final {
    int64_t rank = inRank(0);
    if (axis < -rank || axis >= rank)
      throw popart::error("axis {} out of range for rank {}", axis, rank);
    popart::Shape shape = inShape(0);
    shape.erase(shape.begin() + getAxis());
    outInfo(0) = popart::TensorInfo(inInfo(0).dataType(), shape);
    outInfo(1) = outInfo(0);
  }

  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    os.appendAttribute("axis", axis);
    os.appendAttribute("unbiased", unbiased);
  }

  /// The axis, made non-negative.
  int64_t getAxis() const { return axis < 0 ? axis + inRank(0) : axis; }
  bool isUnbiased() const { return unbiased; }

private:
  int64_t axis;
  bool unbiased;
};

class MomentsOpx : public popart::popx::Opx {
public:
  MomentsOpx(popart::Op *op, popart::popx::Devicex *devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<MomentsOp>(op, {CustomOperators::Moments_1});
  }

  // The input is seen as [outer, n, inner]; each (outer, inner) pair is one reduction.
  void grow(popart::popx::Sequence &prog) const final {
    const auto &op = getOp<MomentsOp>();
    const popart::Shape &shape = inShape(0);
    int64_t axis = op.getAxis(), n = shape[axis], inner = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    int64_t count = outInfo(0).nelms();
    double divisor = double(n) - (op.isUnbiased() ? 1.0 : 0.0);
    const float *x = getInTensor(0).data<float>();
    float *mean = getOutTensor(0).data<float>(), *var = getOutTensor(1).data<float>();
    prog.add([=] {
      parallelFor(count, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const float *row = x + (r / inner) * n * inner + r % inner;
          double sum = 0.0, squares = 0.0;
          for (int64_t k = 0; k < n; ++k) sum += row[k * inner];
          double m = sum / double(n);
          for (int64_t k = 0; k < n; ++k) squares += (row[k * inner] - m) * (row[k * inner] - m);
          mean[r] = float(m);
          var[r] = float(squares / divisor);
        }
      }, /*grain=*/64);
    });
  }
};

const popart::OpDefinition::DataTypes T = {popart::DataType::FLOAT};

popart::OpCreator<MomentsOp> momentsOpCreator(
    popart::OpDefinitions(
        {{CustomOperators::Moments_1,
          popart::OpDefinition({{"input", T}}, {{"mean", T}, {"variance", T}},
                               {{"axis", {"-?[0-9]+"}}, {"unbiased", {"0|1"}}})}}),
    [](const popart::OpCreatorInfo &info) {
      int64_t axis = info.attributes.getAttribute<popart::Attributes::Int>("axis", -1);
      int64_t unbiased = info.attributes.getAttribute<popart::Attributes::Int>("unbiased", 0);
      return std::make_unique<MomentsOp>(info.opid, axis, unbiased != 0, info.settings);
    },
    true);

popart::popx::OpxCreator<MomentsOpx> momentsOpxCreator({CustomOperators::Moments_1});

} // namespace
