// DepthToSpace (1, 11, 13): DCR y = x.reshape(N, b, b, C/b^2, H, W).transpose(0, 3, 4, 1, 5, 2),
// CRD y = x.reshape(N, C/b^2, b, b, H, W).transpose(0, 1, 4, 2, 5, 3), then (N, C/b^2, H*b, W*b).
// SpaceToDepth (1, 13): x.reshape(N, C, H/b, b, W/b, b).transpose(0, 3, 5, 1, 2, 4) -> (N, C*b^2, H/b, W/b).
// Gradient (BlockRearrangeGrad): dy through the inverse permutation back to x's shape.
#include "ops/depth_space.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void BlockRearrangeOp::setup() {
  if (inRank(0) != 4) throw error("input must have rank 4 (NCHW), got rank {}", inRank(0));
  const int64_t b = attr<Attributes::Int>("blocksize");
  if (b <= 0) throw error("attribute blocksize={} must be positive", b);
  const Shape &s = inShape(0);
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  Shape out;
  if (opid.type == "DepthToSpace") {
    if (c % (b * b) != 0) throw error("channels {} are not a multiple of blocksize^2 = {}", c, b * b);
    const std::string mode = opid.version >= 11 ? attr<Attributes::String>("mode", "DCR") : "DCR";
    if (mode == "DCR") view_ = {n, b, b, c / (b * b), h, w}, perm_ = {0, 3, 4, 1, 5, 2};
    else if (mode == "CRD") view_ = {n, c / (b * b), b, b, h, w}, perm_ = {0, 1, 4, 2, 5, 3};
    else throw error("attribute mode='{}' is not supported (expected DCR or CRD)", mode);
    out = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0) throw error("height {} and width {} must be multiples of blocksize {}", h, w, b);
    view_ = {n, c, h / b, b, w / b, b};
    perm_ = {0, 3, 5, 1, 2, 4};
    out = {n, c * b * b, h / b, w / b};
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> BlockRearrangeOp::getGradOps() { return gradOps<BlockRearrangeGradOp>(*this); }

BlockRearrangeGradOp::BlockRearrangeGradOp(const BlockRearrangeOp &fwd)
    : ShapeGradOp(internalOp("BlockRearrangeGrad"), fwd), perm_(fwd.perm().size()) {
  for (size_t k = 0; k < fwd.perm().size(); ++k) {
    view_.push_back(fwd.view()[fwd.perm()[k]]);
    perm_[fwd.perm()[k]] = static_cast<int64_t>(k);
  }
}

POPART_REGISTER_OP(BlockRearrangeOp, onnxOp("DepthToSpace", {1, 11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(BlockRearrangeOp, onnxOp("SpaceToDepth", {1, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(BlockRearrangeGradOp, internalOp("BlockRearrangeGrad"));
} // namespace popart
