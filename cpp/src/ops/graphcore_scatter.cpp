// ai.graphcore ScatterReduce / GroupedScatterReduce / GroupedGather (opset 1).
// ScatterReduce: y has src's shape with `axis` resized to axis_size and
//   y[.., k, ..] = reduce({src[.., a, ..] : index[.., a, ..] = k}) (sum, max, min, mul;
//   none = the last write in row-major order), combined with initial_values when given
//   (otherwise positions nothing is scattered to are 0). With enable_index_broadcast an
//   index of shape [n] ([groups, n] when grouped) is broadcast along the other axes.
//   Gradients: sum: dsrc = dy[index], dinit = dy; max/min: dy[index] shared evenly by the
//   entries equal to y (initial value included); mul: dy[index] * product of the other
//   entries; none: dy to the surviving write (or to the initial value).
// GroupedScatterReduce: the same with a leading group axis of size group_size.
// GroupedGather: y[g] = take(data[g], indices[g], axis - 1) over a leading group axis
//   (group_size 1: a plain gather along `axis`). Gradient: scatter-add of dy.
#include "ops/graphcore_scatter.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

void checkIndexType(const Op &op, InIndex i, const char *name) {
  const DataType t = op.inInfo(i).dataType();
  if (t != DataType::INT32 && t != DataType::INT64)
    throw error("{} (input {}) has type {}, expected INT32 or INT64", name, i, toString(t));
}

int64_t groupSize(const Op &op, int64_t minRank) {
  const int64_t g = op.attr<Attributes::Int>("group_size", 1);
  if (g < 1) throw error("attribute 'group_size' is {}, expected >= 1", g);
  if (g > 1 && (op.inRank(0) < minRank || op.inShape(0)[0] != g || op.inRank(1) < 1 || op.inShape(1)[0] != g))
    throw error("with group_size {}, inputs 0 {} and 1 {} must have a leading group dimension of size {}", g,
                op.inShape(0), op.inShape(1), g);
  return g;
}

} // namespace

void ScatterReduceOp::setup() {
  checkIndexType(*this, 1, "index");
  const int64_t r = attr<Attributes::Int>("reduction", 0);
  if (r < 0 || r > 4)
    throw error("attribute 'reduction' is {}, expected 0 (sum), 1 (max), 2 (min), 3 (mul) or 4 (none)", r);
  reduction_ = static_cast<GcScatterReduction>(r);
  if (inRank(0) < 1) throw error("src (input 0) must have rank >= 1");
  const int64_t groups = groupSize(*this, 2);
  const int64_t axis = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", -1), inRank(0));
  if (groups > 1 && axis == 0) throw error("attribute 'axis' must not name the group dimension 0");
  const int64_t axisSize = attr<Attributes::Int>("axis_size");
  if (axisSize < 1) throw error("attribute 'axis_size' is {}, expected >= 1", axisSize);
  setupIndex(axis, groups);
  const Shape &src = inShape(0);
  layout_.srcShape = src;
  layout_.outer = shapeutil::product(src, 0, axis);
  layout_.n = src[axis];
  layout_.inner = shapeutil::product(src, axis + 1, src.size());
  layout_.axisSize = axisSize;
  Shape out = src;
  out[axis] = axisSize;
  if (hasInput(2) && (inShape(2) != out || inInfo(2).dataType() != inInfo(0).dataType()))
    throw error("initial_values (input 2) {} must have src's type and the output shape {}", inInfo(2).toString(), out);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

void ScatterReduceOp::setupIndex(int64_t axis, int64_t groups) {
  const Shape &src = inShape(0), &idx = inShape(1);
  const bool broadcast = attr<Attributes::Int>("enable_index_broadcast", 1) != 0;
  std::vector<int64_t> strides(src.size(), 0);
  const Shape vec = groups > 1 ? Shape{groups, src[axis]} : Shape{src[axis]};
  if (broadcast && idx == vec && idx.size() < src.size()) {
    strides[axis] = 1;
    if (groups > 1) strides[0] = src[axis];
  } else {
    bool ok = idx.size() == src.size();
    int64_t stride = 1;
    for (int64_t k = static_cast<int64_t>(src.size()) - 1; ok && k >= 0; --k) {
      ok = idx[k] == src[k] || (broadcast && idx[k] == 1);
      strides[k] = idx[k] == 1 ? 0 : stride;
      stride *= idx[k];
    }
    if (!ok) {
      const std::string vecShape = groups > 1 ? "[groups, n]" : "[n]";
      throw error("index (input 1) has shape {}; expected src's shape {}{}", idx, src,
                  broadcast ? " (dimensions of size 1 broadcast) or " + vecShape + " with n = src.shape[axis]"
                            : std::string(" (enable_index_broadcast is 0)"));
    }
  }
  layout_.indexStrides = strides;
}

std::vector<std::unique_ptr<Op>> ScatterReduceOp::getGradOps() { return gradOps<ScatterReduceGradOp>(*this); }

ScatterReduceGradOp::ScatterReduceGradOp(const ScatterReduceOp &fwd)
    : Op(internalOp("ScatterReduceGrad"), fwd.settings), layout_(fwd.layout()), reduction_(fwd.reduction()),
      srcInfo_(fwd.inInfo(0)), ins_{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In},
                                    {2, 1, GradOpInType::In}, {3, 0, GradOpInType::Out}},
      outs_{{0, 0}} {
  if (fwd.hasInput(2)) {
    initInfo_ = fwd.inInfo(2);
    ins_.push_back({4, 2, GradOpInType::In});
    outs_[1] = 2;
  }
}

void ScatterReduceGradOp::setup() {
  outInfo(0) = srcInfo_;
  if (outs_.count(1)) outInfo(1) = initInfo_;
}

void GroupedGatherOp::setup() {
  checkIndexType(*this, 1, "indices");
  if (inRank(0) < 1) throw error("data (input 0) must have rank >= 1");
  const int64_t groups = groupSize(*this, 2);
  const int64_t axis = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", 0), inRank(0));
  if (groups > 1 && axis == 0) throw error("attribute 'axis' must not name the group dimension 0");
  const Shape &d = inShape(0), &idx = inShape(1);
  const size_t lead = groups > 1 ? 1 : 0;
  layout_ = {groups, shapeutil::product(d, lead, axis), d[axis], shapeutil::product(d, axis + 1, d.size()),
             shapeutil::product(idx, lead, idx.size())};
  Shape out(d.begin(), d.begin() + axis);
  out.insert(out.end(), idx.begin() + static_cast<std::ptrdiff_t>(lead), idx.end());
  out.insert(out.end(), d.begin() + axis + 1, d.end());
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> GroupedGatherOp::getGradOps() { return gradOps<GroupedGatherGradOp>(*this); }

const std::vector<GradInOutMapper> &GroupedGatherGradOp::gradInputInfo() const {
  static const std::vector<GradInOutMapper> ins{{0, 0, GradOpInType::GradOut}, {1, 1, GradOpInType::In}};
  return ins;
}

const std::map<int, int> &GroupedGatherGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> outs{{0, 0}};
  return outs;
}

POPART_REGISTER_OP(ScatterReduceOp, graphcoreOp("ScatterReduce"), numericTypes());
POPART_REGISTER_OP(ScatterReduceOp, graphcoreOp("GroupedScatterReduce"), numericTypes());
POPART_REGISTER_OP(ScatterReduceGradOp, internalOp("ScatterReduceGrad"));
POPART_REGISTER_OP(GroupedGatherOp, graphcoreOp("GroupedGather"), shapeutil::copyableTypes());
POPART_REGISTER_OP(GroupedGatherGradOp, internalOp("GroupedGatherGrad"));
} // namespace popart
