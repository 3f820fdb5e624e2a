// CumSum (ai.onnx 11, 14) / CumProd (26): y[j] = sum / product of x[i] for i <= j along
// `axis` (input 1, a scalar read at each run); exclusive drops x[j] itself, reverse runs
// from the end. Gradient CumSumGrad (inputs dY, axis): dx = the same cumulative sum of dy
// taken in the opposite direction (reverse flipped, exclusive kept); it runs the CumSum
// kernel. CumProdGrad (inputs dY, X, axis): dx_i = sum_{j >= i} dy_j prod_{k <= j, k != i} x_k
// (scan order; exclusive shifts j by one), evaluated without division by its kernel.
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

/// CumProdGrad: inputs dY, X, axis; output dX. Attributes: the forward's.
class CumProdGradOp final : public Op {
public:
  explicit CumProdGradOp(const Op &fwd) : Op(internalOp("CumProdGrad"), fwd.settings) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{
        {0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> toX{{0, 0}};
    return toX;
  }
};

class CumSumOp final : public Op {  // CumSum and CumProd
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
    if (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE) return v;
    if (opid.type == "CumProd") v.push_back(std::make_unique<CumProdGradOp>(*this));
    else v.push_back(std::make_unique<CumSumGradOp>(*this));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(CumSumOp, onnxOp("CumSum", {11, 14}), numericTypes());
POPART_REGISTER_OP(CumSumOp, onnxOp("CumProd", {26}), numericTypes());
POPART_REGISTER_OP(CumSumGradOp, internalOp("CumSumGrad"));
POPART_REGISTER_OP(CumProdGradOp, internalOp("CumProdGrad"));
} // namespace popart
