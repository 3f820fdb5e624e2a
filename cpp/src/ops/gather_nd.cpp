// GatherND (11, 12, 13): with k = indices.shape[-1] and b = batch_dims,
// y[B, J] = x[B, indices[B, J, :], ...]: shape indices.shape[:-1] + x.shape[b + k:].
// ScatterND (11, 13, 16, 18): y = x, then y[indices[J, :], ...] (op)= updates[J, ...].
// Gradients: GatherND scatter-adds dy into zeros; ScatterND as ScatterElements (indexing.hpp).
#include "ops/indexing.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void GatherNDOp::setup() {
  checkIndicesDataType(*this, 1);
  const Shape &d = inShape(0), &i = inShape(1);
  batchDims_ = opid.version >= 12 ? attr<Attributes::Int>("batch_dims", 0) : 0;
  const int64_t b = batchDims_, q = inRank(1), r = inRank(0);
  if (q < 1) throw error("indices must have rank >= 1");
  if (b < 0 || b >= std::min(q, r))
    throw error("batch_dims {} must be in [0, min(data rank {}, indices rank {}))", b, r, q);
  for (int64_t k = 0; k < b; ++k)
    if (d[k] != i[k]) throw error("batch dimension {} differs: data {} vs indices {}", k, d[k], i[k]);
  const int64_t k = i.back();
  if (k < 1 || b + k > r) throw error("indices.shape[-1] = {} must be in [1, data rank - batch_dims = {}]", k, r - b);
  Shape out(i.begin(), i.end() - 1);
  out.insert(out.end(), d.begin() + b + k, d.end());
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

void ScatterNDOp::setup() {
  checkIndicesDataType(*this, 1);
  reduction_ = scatterReduction(*this);
  const Shape &d = inShape(0), &i = inShape(1), &u = inShape(2);
  if (i.empty()) throw error("indices must have rank >= 1");
  const int64_t k = i.back();
  if (k < 1 || k > inRank(0)) throw error("indices.shape[-1] = {} must be in [1, data rank {}]", k, inRank(0));
  Shape want(i.begin(), i.end() - 1);
  want.insert(want.end(), d.begin() + k, d.end());
  if (u != want)
    throw error("updates shape {} must be {}", inInfo(2).shapeString(),
                TensorInfo(DataType::FLOAT, want).shapeString());
  if (inInfo(2).dataType() != inInfo(0).dataType())
    throw error("updates have type {}, data has type {}", inInfo(2).data_type(), inInfo(0).data_type());
  outInfo(0) = inInfo(0);
}

std::vector<std::unique_ptr<Op>> GatherNDOp::getGradOps() { return gradOps<GatherNDGradOp>(*this); }

std::vector<std::unique_ptr<Op>> ScatterNDOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<ScatterGradOp>(*this, reduction_, -1));
  return v;
}

POPART_REGISTER_OP(GatherNDOp, onnxOp("GatherND", {11, 12, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ScatterNDOp, onnxOp("ScatterND", {11, 13, 16, 18}), shapeutil::copyableTypes());
POPART_REGISTER_OP(GatherNDGradOp, internalOp("GatherNDGrad"));
} // namespace popart
