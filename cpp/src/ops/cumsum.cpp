// CumSum (ai.onnx 11, 14): y[j] = sum of x[i] for i <= j along `axis` (input 1, a
// scalar read at each run); exclusive drops x[j] itself, reverse sums from the end.
// Gradient CumSumGrad (inputs dY, axis): dx = the same cumulative sum of dy taken in
// the opposite direction (reverse flipped, exclusive kept); it runs the CumSum kernel.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class CumSumGradOp final : public Op {
public:
  explicit CumSumGradOp(const Op &fwd) : Op(internalOp("CumSumGrad"), fwd.settings), xInfo_(fwd.inInfo(0)) {
    attributes() = fwd.attributes();
    attributes().setAttribute("reverse", int64_t(fwd.attr<Attributes::Int>("reverse", 0) == 0 ? 1 : 0));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = xInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> toX{{0, 0}};
    return toX;
  }

private:
  TensorInfo xInfo_;
};

class CumSumOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &a = inInfo(1);
    if (a.dataType() != DataType::INT32 && a.dataType() != DataType::INT64)
      throw error("axis must be INT32 or INT64, not {}", a.data_type());
    if (a.nelms() != 1) throw error("axis must have one element, has shape {}", a.shape());
    if (inIsConst(1)) shapeutil::normaliseAxis(inConstInts(1)[0], inRank(0));
    for (const char *name : {"exclusive", "reverse"}) {
      auto v = attr<Attributes::Int>(name, 0);
      if (v != 0 && v != 1) throw error("attribute {}={} is not supported (expected 0 or 1)", name, v);
    }
    outInfo(0) = inInfo(0);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    const DataType t = inInfo(0).dataType();
    if (t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE)
      v.push_back(std::make_unique<CumSumGradOp>(*this));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(CumSumOp, onnxOp("CumSum", {11, 14}), numericTypes());
POPART_REGISTER_OP(CumSumGradOp, internalOp("CumSumGrad"));
} // namespace popart
