// ai.graphcore DynamicSlice / DynamicUpdate / DynamicAdd / DynamicZero (opset 1).
// R = T[o_0 : o_0 + sizes_0, ...] along `axes`, offsets o read at run time (input 1)
// and clamped to [0, dim - size]. DynamicSlice: y = R. DynamicUpdate: y = T with
// R := S. DynamicAdd: y = T with R += S. DynamicZero: y = T with R := 0.
// `noOverlap` only tells the IPU the regions of repeated calls are disjoint: no effect here.
// Gradients (none for the offset): Slice: dT = zeros with R := dy. Update: dT = dy with
// R := 0, dS = dy[R]. Add: dT = dy, dS = dy[R]. Zero: dT = dy with R := 0.
#include "ops/graphcore_dynamic.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {

Shape DynamicBaseOp::regionShape() const {
  Shape s = whole_;
  for (size_t i = 0; i < axes_.size(); ++i) s[axes_[i]] = sizes_[i];
  return s;
}

void DynamicBaseOp::setupRegion(const Shape &whole) {
  whole_ = whole;
  const auto &axes = attr<Attributes::Ints>("axes");
  sizes_ = attr<Attributes::Ints>("sizes");
  if (axes.size() != sizes_.size())
    throw error("attributes 'axes' {} and 'sizes' {} must have the same length", axes, sizes_);
  axes_ = shapeutil::normaliseAxes(axes, static_cast<int64_t>(whole.size()));
  for (size_t i = 0; i < axes_.size(); ++i)
    if (sizes_[i] < 0 || sizes_[i] > whole[axes_[i]])
      throw error("'sizes' {}: size {} along axis {} must be in [0, {}]", sizes_, sizes_[i], axes_[i],
                  whole[axes_[i]]);
  const DataType t = inInfo(1).dataType();
  if (t != DataType::INT32 && t != DataType::UINT32 && t != DataType::INT64)
    throw error("offset (input 1) has type {}, expected INT32, UINT32 or INT64", toString(t));
  if (inInfo(1).nelms() != static_cast<int64_t>(axes_.size()) || inRank(1) > 1)
    throw error("offset (input 1) has shape {}, expected [{}] (one entry per axis)", inShape(1), axes_.size());
}

void DynamicBaseOp::copyRegion(const DynamicBaseOp &fwd) {
  attributes() = fwd.attributes();
  whole_ = fwd.whole_;
}

namespace {

/// Gradient ops: input 0 is dY, input 1 the forward offset; output 0 is the
/// gradient of forward input `xIndex`.
class DynamicGradOp final : public DynamicBaseOp {
public:
  DynamicGradOp(const OperatorIdentifier &id, const DynamicBaseOp &fwd, DynamicMode mode, InIndex xIndex)
      : DynamicBaseOp(id, fwd.settings, mode), outs_{{0, xIndex}} {
    copyRegion(fwd);
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    setupRegion(wholeShape());
    outInfo(0) = TensorInfo(inInfo(0).dataType(), mode() == DynamicMode::Slice ? regionShape() : wholeShape());
  }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> ins{{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}};
    return ins;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outs_; }

private:
  std::map<int, int> outs_;
};

OperatorIdentifier padGradId() { return internalOp("DynamicSliceGrad"); }
OperatorIdentifier zeroGradId() { return internalOp("DynamicZeroGrad"); }
OperatorIdentifier sliceGradId() { return internalOp("DynamicUpdaterGrad"); }

template <DynamicMode M> class DynamicOp final : public DynamicBaseOp {
public:
  DynamicOp(const OperatorIdentifier &id, const Op::Settings &s) : DynamicBaseOp(id, s, M) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    setupRegion(inShape(0));
    if constexpr (M == DynamicMode::Update || M == DynamicMode::Add) {
      if (inShape(2) != regionShape())
        throw error("slice (input 2) has shape {}, expected {} (the tensor's shape with 'sizes' along 'axes')",
                    inShape(2), regionShape());
      if (inInfo(2).dataType() != inInfo(0).dataType())
        throw error("slice (input 2) has type {}, expected the tensor's type {}", toString(inInfo(2).dataType()),
                    toString(inInfo(0).dataType()));
    }
    outInfo(0) = TensorInfo(inInfo(0).dataType(), M == DynamicMode::Slice ? regionShape() : inShape(0));
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    if constexpr (M == DynamicMode::Slice) {
      v.push_back(std::make_unique<DynamicGradOp>(padGradId(), *this, DynamicMode::Pad, 0));
    } else if constexpr (M == DynamicMode::Add) {
      v.push_back(std::make_unique<ReshapeGradOp>(*this));
    } else {
      v.push_back(std::make_unique<DynamicGradOp>(zeroGradId(), *this, DynamicMode::Zero, 0));
    }
    if constexpr (M == DynamicMode::Update || M == DynamicMode::Add)
      v.push_back(std::make_unique<DynamicGradOp>(sliceGradId(), *this, DynamicMode::Slice, 2));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(DynamicOp<DynamicMode::Slice>, graphcoreOp("DynamicSlice"), shapeutil::copyableTypes());
POPART_REGISTER_OP(DynamicOp<DynamicMode::Update>, graphcoreOp("DynamicUpdate"), shapeutil::copyableTypes());
POPART_REGISTER_OP(DynamicOp<DynamicMode::Add>, graphcoreOp("DynamicAdd"), numericTypes());
POPART_REGISTER_OP(DynamicOp<DynamicMode::Zero>, graphcoreOp("DynamicZero"), numericTypes());
POPART_REGISTER_OP(DynamicGradOp, internalOp("DynamicSliceGrad"));
POPART_REGISTER_OP(DynamicGradOp, internalOp("DynamicZeroGrad"));
POPART_REGISTER_OP(DynamicGradOp, internalOp("DynamicUpdaterGrad"));
} // namespace popart
