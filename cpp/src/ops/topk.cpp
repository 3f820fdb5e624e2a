// TopK (ai.onnx 1: k attribute; 10: K input; 11: largest, sorted): the k largest (or
// smallest) values along `axis` and their INT64 indices, sorted, ties by lower index.
// K must be a constant (static shapes). Gradient of the values: dx = zeros, then
// dx[.., indices[.., j, ..], ..] = dy[.., j, ..] (GatherElementsGrad); indices have none.
#include "indexing.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class TopKOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override {
    if (opid.version >= 10) return {1};
    return {};
  }
  void setup() override {
    axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", -1), inRank(0));
    int64_t k;
    if (opid.version < 10) {
      k = attr<Attributes::Int>("k", -1);
      if (!attributes().hasAttribute("k")) throw error("attribute k is required at opset 1");
    } else {
      if (!hasInput(1)) throw error("input K is required from opset 10");
      auto ks = inConstInts(1);
      if (ks.size() != 1) throw error("K must have one element, has shape {}", inShape(1));
      k = ks[0];
    }
    if (k < 0 || k > inShape(0)[axis_])
      throw error("k = {} out of range for axis {} of size {}", k, axis_, inShape(0)[axis_]);
    for (const char *name : {"largest", "sorted"}) {
      auto v = attr<Attributes::Int>(name, 1);
      if (v != 0 && v != 1) throw error("attribute {}={} is not supported (expected 0 or 1)", name, v);
    }
    Shape out = inShape(0);
    out[axis_] = k;
    outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
    outInfo(1) = TensorInfo(DataType::INT64, out);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<GatherElementsGradOp>(*this, axis_, GradInOutMapper{1, 1, GradOpInType::Out}));
    return v;
  }

private:
  int64_t axis_ = 0;
};

} // namespace
POPART_REGISTER_OP(TopKOp, onnxOp("TopK", {1, 10, 11}), numericTypes());
} // namespace popart
