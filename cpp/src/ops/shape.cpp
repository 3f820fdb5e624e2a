// Shape (ai.onnx 1, 13, 15, 19, 21): y = int64(x.shape[start:end]).
// ConstantOfShape (ai.onnx 9, 20, 21): y of shape `input` filled with the
// one-element tensor attribute `value` (default float32 0).
// Size (ai.onnx 1, 13, 19, 21): y = int64 scalar, the number of elements of x.
#include "ops/shape.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void ShapeOp::setup() {
  const int64_t r = inRank(0);
  auto clampAxis = [r](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + r : a, 0, r); };
  if (opid.version < 15 && (attributes().hasAttribute("start") || attributes().hasAttribute("end")))
    throw error("attributes 'start' and 'end' need opset 15 or later");
  start_ = clampAxis(attr<Attributes::Int>("start", 0));
  int64_t end = clampAxis(attr<Attributes::Int>("end", r));
  outInfo(0) = TensorInfo(DataType::INT64, {std::max<int64_t>(0, end - start_)});
}

namespace {

class ConstantOfShapeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {0}; }
  void setup() override {
    if (inRank(0) != 1) throw error("the shape input must be 1-D, not of rank {}", inRank(0));
    Shape s = inConstInts(0);
    for (int64_t d : s)
      if (d < 0) throw error("shape {} has a negative dimension", s);
    DataType t = DataType::FLOAT;
    if (attributes().hasAttribute("value")) {
      const auto &v = attr<Attributes::Tensor>("value");
      if (v.info.nelms() != 1) throw error("attribute 'value' must have one element, not {}", v.info.nelms());
      t = v.info.dataType();
    }
    outInfo(0) = TensorInfo(t, s);
  }
};

class SizeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool readsOnlyInputInfo() const override { return true; }
  void setup() override { outInfo(0) = TensorInfo(DataType::INT64, Shape{}); }
};

} // namespace
POPART_REGISTER_OP(SizeOp, onnxOp("Size", {1, 13, 19, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ShapeOp, onnxOp("Shape", {1, 13, 15, 19, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ConstantOfShapeOp, onnxOp("ConstantOfShape", {9, 20, 21}), {DataType::INT64});
} // namespace popart
