// Split (ai.onnx 1, 2, 11, 13, 18): outputs are consecutive pieces of x along
// `axis`; sizes from `split` (attribute up to 11, input from 13; opset 1 takes
// either) or equal parts (opset 18: num_outputs, the last part may be smaller).
// Gradient: dx = Concat of the output gradients (zeros for absent outputs).
#include "ops/split.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

std::vector<int64_t> SplitOp::requestedSplit() const {
  bool asAttr = attributes().hasAttribute("split");
  if (opid.version >= 13 && asAttr) throw error("'split' is input 1 since opset 13, not an attribute");
  if (asAttr) return attr<Attributes::Ints>("split");
  if ((opid.version == 1 || opid.version >= 13) && hasInput(1)) return inConstInts(1);
  return {};
}

void SplitOp::setup() {
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
  const int64_t dim = inShape(0)[axis_];
  int64_t n = output->maxIndex();
  splits_ = requestedSplit();
  if (attributes().hasAttribute("num_outputs")) {
    if (opid.version < 18) throw error("attribute 'num_outputs' needs opset 18 or later");
    if (!splits_.empty()) throw error("give either input 'split' or attribute 'num_outputs', not both");
    int64_t want = attr<Attributes::Int>("num_outputs");
    if (want < 1 || want < n) throw error("num_outputs {} is less than the node's {} outputs", want, n);
    n = want;
  }
  if (splits_.empty()) {
    if (n < 1) throw error("Split has no outputs");
    if (opid.version < 18 && dim % n != 0)
      throw error("cannot split axis {} of size {} into {} equal parts", axis_, dim, n);
    int64_t chunk = (dim + n - 1) / n;
    if (chunk * (n - 1) > dim) throw error("cannot split axis {} of size {} into {} parts", axis_, dim, n);
    splits_.assign(static_cast<size_t>(n), chunk);
    splits_.back() = dim - chunk * (n - 1);
  }
  if (static_cast<int64_t>(splits_.size()) < output->maxIndex())
    throw error("split {} gives {} parts but the node has {} outputs", splits_, splits_.size(), output->maxIndex());
  int64_t total = 0;
  for (int64_t s : splits_) {
    if (s < 0) throw error("split {} has a negative size", splits_);
    total += s;
  }
  if (total != dim) throw error("split {} sums to {}, axis {} has size {}", splits_, total, axis_, dim);
  for (const auto &[i, t] : output->tensorMap()) {
    Shape s = inShape(0);
    s[axis_] = splits_[i];
    outInfo(i) = TensorInfo(inInfo(0).dataType(), s);
  }
}

std::vector<std::unique_ptr<Op>> SplitOp::getGradOps() { return gradOps<SplitGradOp>(*this); }

namespace {
std::vector<GradInOutMapper> splitOutputGradients(const Op &fwd) {
  std::vector<GradInOutMapper> ins;
  for (const auto &[i, t] : fwd.output->tensorMap())
    ins.push_back({static_cast<InIndex>(ins.size()), i, GradOpInType::GradOut});
  return ins;
}
} // namespace

SplitGradOp::SplitGradOp(const SplitOp &fwd)
    : ShapeGradOp(internalOp("SplitGrad"), fwd, 0, splitOutputGradients(fwd)), axis_(fwd.axis()),
      splits_(fwd.splits()), pieceInputs_(splits_.size(), -1) {
  for (const auto &m : gradInputInfo()) pieceInputs_[m.iNonGrad] = m.iGrad;
}

POPART_REGISTER_OP(SplitOp, onnxOp("Split", {1, 2, 11, 13, 18}), shapeutil::copyableTypes());
POPART_REGISTER_OP(SplitGradOp, internalOp("SplitGrad"));
} // namespace popart
