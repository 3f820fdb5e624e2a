// InstanceNormalization (1, 6), LayerNormalization (17), RMSNormalization (23), MeanVarianceNormalization
// (9, 13), LpNormalization (1), LRN (1, 13): shape inference and attribute checks (formulas in
// normalization.hpp). Gradients are NormGradOps fed dY and X (plus the scale for Instance/Layer/RMS):
//   Instance/Layer: xh = (x - mean) invstd, g = dy scale, dx = invstd (g - mean(g) - xh mean(g xh)),
//   dscale = sum(dy xh), dB = sum(dy); RMS: the same with mean = 0 and without the mean(g) term;
//   MVN, Lp and LRN formulas beside their kernels.
#include "ops/normalization.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"
#include <algorithm>

namespace popart {
namespace {

/// True when `s` broadcasts (numpy, unidirectionally) to `target`.
bool normBroadcastsTo(const Shape &s, const Shape &target) {
  if (s.size() > target.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const int64_t a = s[s.size() - 1 - i], b = target[target.size() - 1 - i];
    if (a != b && a != 1) return false;
  }
  return true;
}

void normCheckSameType(const Op &op, InIndex i) {
  if (op.hasInput(i) && op.inInfo(i).dataType() != op.inInfo(0).dataType())
    throw error("input {} has type {}, X has type {}", i, op.inInfo(i).data_type(), op.inInfo(0).data_type());
}

/// Gradient op with inputs dY, X and output dX.
std::vector<std::unique_ptr<Op>> normXGradOps(const std::string &type, const Op &fwd) {
  return normGradOps(type, fwd, {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}}, {{0, 0}});
}

} // namespace

NormGradOp::NormGradOp(const OperatorIdentifier &id, const Op &fwd, std::vector<GradInOutMapper> ins,
                       std::map<int, int> outs)
    : Op(id, fwd.settings), ins_(std::move(ins)), outs_(std::move(outs)) {
  attributes() = fwd.attributes();
  for (const auto &[g, x] : outs_) infos_[g] = fwd.inInfo(x);
}

void NormGradOp::setup() {
  for (const auto &[g, info] : infos_) outInfo(g) = info;
}

std::vector<std::unique_ptr<Op>> normGradOps(const std::string &type, const Op &fwd, std::vector<GradInOutMapper> ins,
                                             std::map<int, int> outs) {
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<NormGradOp>(internalOp(type), fwd, std::move(ins), std::move(outs)));
  return v;
}

void InstanceNormOp::setup() {
  if (inRank(0) < 2) throw error("input must have rank >= 2 (N, C, ...), got rank {}", inRank(0));
  const Shape c{inShape(0)[1]};
  if (inShape(1) != c || inShape(2) != c)
    throw error("scale {} and B {} must have shape [{}] (the channels)", inInfo(1).shapeString(),
                inInfo(2).shapeString(), c[0]);
  normCheckSameType(*this, 1), normCheckSameType(*this, 2);
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> InstanceNormOp::getGradOps() {
  return normGradOps("InstanceNormalizationGrad", *this);
}

namespace {

/// Checks of LayerNormalization and RMSNormalization: the scale (input 1) and bias (input 2, Layer only)
/// broadcast to dims [axis, rank) of X and have its type; stash_type is FLOAT. Returns the axis.
int64_t normCheckRowWise(const Op &op) {
  const int64_t axis = shapeutil::normaliseAxis(op.attr<Attributes::Int>("axis", -1), op.inRank(0));
  const Shape norm(op.inShape(0).begin() + axis, op.inShape(0).end());
  for (InIndex i : {1, 2})
    if (op.hasInput(i) && !normBroadcastsTo(op.inShape(i), norm))
      throw error("input {} of shape {} does not broadcast to the normalised shape {}", i, op.inInfo(i).shapeString(),
                  TensorInfo(DataType::FLOAT, norm).shapeString());
  normCheckSameType(op, 1), normCheckSameType(op, 2);
  const int64_t stash = op.attr<Attributes::Int>("stash_type", 1);
  if (stash != 1) throw error("attribute stash_type={} is not supported (only 1, FLOAT)", stash);
  return axis;
}

} // namespace

void LayerNormOp::setup() {
  axis_ = normCheckRowWise(*this);
  outInfo(0) = inInfo(0);
  Shape stats = inShape(0);
  std::fill(stats.begin() + axis_, stats.end(), 1);
  for (OutIndex o : {1, 2})
    if (hasOutput(o)) outInfo(o) = TensorInfo(DataType::FLOAT, stats);
}

std::vector<std::unique_ptr<Op>> LayerNormOp::getGradOps() {  // dY, X, Scale -> dX, dScale (, dB)
  std::map<int, int> outs{{0, 0}, {1, 1}};
  if (hasInput(2)) outs[2] = 2;
  return normGradOps("LayerNormalizationGrad", *this,
                     {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}}, outs);
}

void RMSNormOp::setup() {
  normCheckRowWise(*this);
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> RMSNormOp::getGradOps() {  // dY, X, Scale -> dX, dScale
  return normGradOps("RMSNormalizationGrad", *this,
                     {{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}, {2, 1, GradOpInType::In}},
                     {{0, 0}, {1, 1}});
}

void MeanVarianceNormOp::setup() {
  shapeutil::normaliseAxes(attr<Attributes::Ints>("axes", {0, 2, 3}), inRank(0));  // validates them
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> MeanVarianceNormOp::getGradOps() {
  return normXGradOps("MeanVarianceNormalizationGrad", *this);
}

void LpNormOp::setup() {
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", -1), inRank(0));
  p_ = attr<Attributes::Int>("p", 2);
  if (p_ != 1 && p_ != 2) throw error("attribute p={} is not supported (expected 1 or 2)", p_);
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> LpNormOp::getGradOps() { return normXGradOps("LpNormalizationGrad", *this); }

void LRNOp::setup() {
  if (inRank(0) < 3) throw error("input must have rank >= 3 (N, C, D1, ...), got rank {}", inRank(0));
  const int64_t size = attr<Attributes::Int>("size");
  if (size <= 0) throw error("attribute size={} must be positive", size);
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> LRNOp::getGradOps() { return normXGradOps("LRNGrad", *this); }

POPART_REGISTER_OP(InstanceNormOp, onnxOp("InstanceNormalization", {1, 6}), floatTypes());
POPART_REGISTER_OP(LayerNormOp, onnxOp("LayerNormalization", {17}), floatTypes());
POPART_REGISTER_OP(RMSNormOp, onnxOp("RMSNormalization", {23}), floatTypes());
POPART_REGISTER_OP(MeanVarianceNormOp, onnxOp("MeanVarianceNormalization", {9, 13}), floatTypes());
POPART_REGISTER_OP(LpNormOp, onnxOp("LpNormalization", {1}), floatTypes());
POPART_REGISTER_OP(LRNOp, onnxOp("LRN", {1, 13}), floatTypes());
POPART_REGISTER_OP(NormGradOp, internalOp("InstanceNormalizationGrad"));
POPART_REGISTER_OP(NormGradOp, internalOp("LayerNormalizationGrad"));
POPART_REGISTER_OP(NormGradOp, internalOp("RMSNormalizationGrad"));
POPART_REGISTER_OP(NormGradOp, internalOp("MeanVarianceNormalizationGrad"));
POPART_REGISTER_OP(NormGradOp, internalOp("LpNormalizationGrad"));
POPART_REGISTER_OP(NormGradOp, internalOp("LRNGrad"));
} // namespace popart
