// GatherElements (11, 13): y[i] = x[i_0, .., indices[i], .., i_r-1] (negative indices wrap once).
// ScatterElements (11, 13, 16, 18) and Scatter (9, 11, deprecated alias): y = x, then
// y[i_0, .., indices[i], .., i_r-1] = updates[i] (or +=, *=, max=, min= with `reduction`).
// Gradients: GatherElements scatter-adds dy into zeros; the scatters' gradients
// (ScatterGradOp, shared with ScatterND) are described in indexing.hpp.
#include "ops/indexing.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

ScatterReduction scatterReduction(const Op &op) {
  const std::string r = op.attr<Attributes::String>("reduction", "none");
  const int64_t v = op.opid.type == "Scatter" ? 0 : op.opid.version;
  if (r == "none") return ScatterReduction::None;
  if (r == "add" && v >= 16) return ScatterReduction::Add;
  if (r == "mul" && v >= 16) return ScatterReduction::Mul;
  if (r == "max" && v >= 18) return ScatterReduction::Max;
  if (r == "min" && v >= 18) return ScatterReduction::Min;
  throw error("attribute reduction='{}' is not supported at opset {} (none; add, mul from 16; max, min from 18)",
              r, op.opid.version);
}

void checkIndicesDataType(const Op &op, InIndex i) {
  const DataType t = op.inInfo(i).dataType();
  if (t != DataType::INT32 && t != DataType::INT64)
    throw error("indices have type {}, expected INT32 or INT64", op.inInfo(i).data_type());
}

namespace {

/// Same rank, and indices no larger than data on every axis but `axis`.
void checkScatterElementShapes(const Op &op, int64_t axis) {
  const Shape &d = op.inShape(0), &i = op.inShape(1);
  if (d.size() != i.size()) throw error("data rank {} and indices rank {} differ", d.size(), i.size());
  for (size_t k = 0; k < d.size(); ++k)
    if (static_cast<int64_t>(k) != axis && i[k] > d[k])
      throw error("indices shape {} exceeds data shape {} on axis {}", op.inInfo(1).shapeString(),
                  op.inInfo(0).shapeString(), k);
}

} // namespace

void GatherElementsOp::setup() {
  checkIndicesDataType(*this, 1);
  if (inRank(0) == 0) throw error("data must have rank >= 1");
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
  checkScatterElementShapes(*this, axis_);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), inShape(1));
}

void ScatterElementsOp::setup() {
  checkIndicesDataType(*this, 1);
  if (inRank(0) == 0) throw error("data must have rank >= 1");
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
  reduction_ = scatterReduction(*this);
  checkScatterElementShapes(*this, axis_);
  if (inShape(2) != inShape(1))
    throw error("updates shape {} differs from indices shape {}", inInfo(2).shapeString(), inInfo(1).shapeString());
  if (inInfo(2).dataType() != inInfo(0).dataType())
    throw error("updates have type {}, data has type {}", inInfo(2).data_type(), inInfo(0).data_type());
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> GatherElementsOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<GatherElementsGradOp>(*this, axis_, GradInOutMapper{1, 1, GradOpInType::In}));
  return v;
}

std::vector<std::unique_ptr<Op>> ScatterElementsOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<ScatterGradOp>(*this, reduction_, axis_));
  return v;
}

ScatterGradOp::ScatterGradOp(const Op &fwd, ScatterReduction reduction, int64_t axis)
    : Op(internalOp(fwd.opid.type == "ScatterND" ? "ScatterNDGrad" : "ScatterElementsGrad"), fwd.settings),
      reduction_(reduction), axis_(axis), dataInfo_(fwd.inInfo(0)), updatesInfo_(fwd.inInfo(2)),
      ins_{{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}} {
  if (reduction != ScatterReduction::None && reduction != ScatterReduction::Add)
    ins_.insert(ins_.end(), {{2, 0, GradOpInType::In}, {3, 2, GradOpInType::In}});
}

void ScatterGradOp::setup() {
  outInfo(0) = dataInfo_;
  outInfo(1) = updatesInfo_;
}

POPART_REGISTER_OP(GatherElementsOp, onnxOp("GatherElements", {11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ScatterElementsOp, onnxOp("ScatterElements", {11, 13, 16, 18}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ScatterElementsOp, onnxOp("Scatter", {9, 11}), shapeutil::copyableTypes());
POPART_REGISTER_OP(GatherElementsGradOp, internalOp("GatherElementsGrad"));
POPART_REGISTER_OP(ScatterGradOp, internalOp("ScatterElementsGrad"));
POPART_REGISTER_OP(ScatterGradOp, internalOp("ScatterNDGrad"));
} // namespace popart
