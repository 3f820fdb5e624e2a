// Shape inference shared by element-wise ops.
#include "popart/op/elementwise.hpp"
#include "popart/error.hpp"

namespace popart {

void ElementWiseUnaryOp::setup() { outInfo(0) = inInfo(0); }

void ElementWiseBinaryOp::setup() {
  const auto &a = inInfo(0), &b = inInfo(1);
  if (a.dataType() != b.dataType())
    throw error("inputs have different types: {} and {}", a.data_type(), b.data_type());
  outInfo(0) = TensorInfo(a.dataType(), npOut(a.shape(), b.shape()));
}

void BinaryComparisonOp::setup() {
  const auto &a = inInfo(0), &b = inInfo(1);
  if (a.dataType() != b.dataType())
    throw error("inputs have different types: {} and {}", a.data_type(), b.data_type());
  outInfo(0) = TensorInfo(DataType::BOOL, npOut(a.shape(), b.shape()));
}

ElementWiseNonLinearUnaryGradOp::ElementWiseNonLinearUnaryGradOp(const OperatorIdentifier &id, const Op &fwd)
    : Op(id, fwd.settings) {}

void ElementWiseNonLinearUnaryGradOp::setup() { outInfo(0) = inInfo(1); }

const std::vector<GradInOutMapper> &ElementWiseNonLinearUnaryGradOp::gradInputInfo() const {
  static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}};
  return info;
}

const std::map<int, int> &ElementWiseNonLinearUnaryGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> m{{0, 0}};
  return m;
}

const std::vector<GradInOutMapper> &ElementWiseOutputGradOp::gradInputInfo() const {
  static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::Out}};
  return info;
}

const std::map<int, int> &ElementWiseOutputGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> m{{0, 0}};
  return m;
}

} // namespace popart
