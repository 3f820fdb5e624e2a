// Slice (ai.onnx 1: starts/ends/axes attributes; 10, 11, 13: constant inputs
// starts, ends, axes, steps). Negative starts/ends count from the end, then
// clamp to [0, d] (step > 0) or [-1, d-1] (step < 0); size = ceil((e - s) / step).
// Gradient: dx = zeros with dy scattered back into the sliced positions.
// Starts that are not constant are accepted when ends - starts is (see
// constantDifference): the output shape stays static.
#include "ops/slice.hpp"
#include "popart/graph.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include "shape_util.hpp"
#include <optional>

namespace popart {
namespace {

// Ops that move integer values around without changing them (or, for Cast,
// convert between integer types): equal inputs give equal outputs.
bool keepsValues(const Op &op) {
  static const char *const kinds[] = {"Unsqueeze", "Squeeze", "Reshape", "Flatten", "Cast"};
  for (const char *k : kinds)
    if (op.opid.type == k) return op.opid.domain == Domain::ai_onnx;
  return false;
}

bool sameAttributes(const Attributes &a, const Attributes &b) {
  if (a.values().size() != b.values().size()) return false;
  for (const auto &[name, v] : a.values())
    if (!b.hasAttribute(name) || toString(v) != toString(b.values().at(name))) return false;
  return true;
}

bool sameValue(const Tensor *a, const Tensor *b) {
  return a == b || (a->tensorType() == TensorType::Const && b->tensorType() == TensorType::Const &&
                    a->info == b->info && a->tensorData() == b->tensorData());
}

// Same op kind and attributes, and equal tensors at every input but 0.
bool sameOpApart0(const Op &a, const Op &b) {
  if (a.opid != b.opid || !sameAttributes(a.attributes(), b.attributes()) || a.input->n() != b.input->n())
    return false;
  for (const auto &[i, t] : a.input->tensorMap())
    if (i != 0 && (!b.hasInput(i) || !sameValue(t, b.inTensor(i)))) return false;
  return true;
}

bool isOnnx(const Op *op, const char *type) {
  return op && op->opid.type == type && op->opid.domain == Domain::ai_onnx;
}

std::optional<std::vector<int64_t>> constantDifference(const Tensor *a, const Tensor *b);

// t = Add(v, c), Add(c, v) or Sub(v, c) with c a constant of one element or
// of t's size: v and what is added to each element (c or -c).
std::optional<std::pair<const Tensor *, std::vector<int64_t>>> plusConstant(const Tensor *t) {
  Op *p = t->getProducerUnsafe();
  const bool add = isOnnx(p, "Add"), sub = isOnnx(p, "Sub");
  if (!add && !sub) return std::nullopt;
  const auto n = static_cast<size_t>(t->info.nelms());
  for (InIndex var : {0, 1}) {
    const InIndex c = 1 - var;
    if ((sub && var != 0) || !p->inIsConst(c) || p->inInfo(var).nelms() != t->info.nelms()) continue;
    std::vector<int64_t> k = p->inConstInts(c);
    if (k.size() == 1) k.assign(n, k[0]);
    if (k.size() != n) continue;
    if (sub)
      for (int64_t &v : k) v = -v;
    return std::make_pair(p->inTensor(var), std::move(k));
  }
  return std::nullopt;
}

// a - b element-wise when the graph proves it constant: after looking through
// Identity, a = b (+ or - constants on either side), or both are made by the
// same value-keeping op from inputs with a constant difference.
std::optional<std::vector<int64_t>> constantDifference(const Tensor *a, const Tensor *b) {
  if (a == b) return std::vector<int64_t>(static_cast<size_t>(a->info.nelms()), 0);
  Op *pa = a->getProducerUnsafe(), *pb = b->getProducerUnsafe();
  if (isOnnx(pa, "Identity")) return constantDifference(pa->inTensor(0), b);
  if (isOnnx(pb, "Identity")) return constantDifference(a, pb->inTensor(0));
  for (bool left : {true, false}) {
    auto sum = plusConstant(left ? a : b);
    if (!sum) continue;
    auto d = left ? constantDifference(sum->first, b) : constantDifference(a, sum->first);
    if (!d) continue;
    for (size_t j = 0; j < d->size(); ++j) (*d)[j] += left ? sum->second[j] : -sum->second[j];
    return d;
  }
  if (pa && pb && keepsValues(*pa) && sameOpApart0(*pa, *pb))
    return constantDifference(pa->inTensor(0), pb->inTensor(0));
  return std::nullopt;
}

} // namespace

SliceOp::Request SliceOp::request() const {
  Request r;
  if (opid.version < 10) {
    r.starts = attr<Attributes::Ints>("starts");
    r.ends = attr<Attributes::Ints>("ends");
    r.axes = attr<Attributes::Ints>("axes", {});
  } else {
    for (const char *name : {"starts", "ends", "axes"})
      if (attributes().hasAttribute(name)) throw error("'{}' is an input since opset 10, not an attribute", name);
    r.starts = inConstInts(1);
    r.ends = inConstInts(2);
    if (hasInput(3)) r.axes = inConstInts(3);
    if (hasInput(4)) r.steps = inConstInts(4);
  }
  if (!hasInput(3) && r.axes.empty())
    for (size_t i = 0; i < r.starts.size(); ++i) r.axes.push_back(static_cast<int64_t>(i));
  if (r.steps.empty()) r.steps.assign(r.starts.size(), 1);
  if (r.ends.size() != r.starts.size() || r.axes.size() != r.starts.size() || r.steps.size() != r.starts.size())
    throw error("starts {}, ends {}, axes {} and steps {} must have the same length", r.starts, r.ends, r.axes,
                r.steps);
  return r;
}

void SliceOp::setup() {
  if (opid.version >= 10 && hasInput(1) && !inIsConst(1)) return setupDynamic();
  Request r = request();
  const Shape &in = inShape(0);
  std::vector<int64_t> axes = shapeutil::normaliseAxes(r.axes, inRank(0));
  Shape out = in;
  begins_.assign(in.size(), 0);
  steps_.assign(in.size(), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i], d = in[a], step = r.steps[i];
    if (step == 0) throw error("steps {} contain 0", r.steps);
    int64_t s = r.starts[i] < 0 ? r.starts[i] + d : r.starts[i];
    int64_t e = r.ends[i] < 0 ? r.ends[i] + d : r.ends[i];
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, d), e = std::clamp<int64_t>(e, 0, d);
      out[a] = e > s ? (e - s - 1) / step + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1), e = std::clamp<int64_t>(e, -1, d - 1);
      out[a] = s > e && d > 0 ? (s - e - 1) / -step + 1 : 0;
    }
    begins_[a] = out[a] > 0 ? s : 0;
    steps_[a] = step;
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

void SliceOp::setupDynamic() {
  if (!hasInput(2)) throw error("input 2 (ends) is missing");
  const DataType t = inInfo(1).dataType();
  if (t != DataType::INT32 && t != DataType::INT64)
    throw error("starts '{}' must be INT32 or INT64, got {}", inId(1), inInfo(1).data_type());
  auto lengths = constantDifference(inTensor(2), inTensor(1));
  if (!lengths)
    throw error("input 1 ('{}') must be a constant known at compile time, or ends - starts a constant "
                "(x[i : i + k]), so that the output shape is static",
                inId(1));
  std::vector<int64_t> axes;
  if (hasInput(3)) axes = inConstInts(3);
  else
    for (size_t i = 0; i < lengths->size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (hasInput(4))
    for (int64_t step : inConstInts(4))
      if (step != 1) throw error("steps must be 1 when starts '{}' are computed at run time, got {}", inId(1), step);
  if (axes.size() != lengths->size())
    throw error("starts '{}' have {} elements but axes {} has {}", inId(1), lengths->size(), axes, axes.size());
  dynamicAxes_ = shapeutil::normaliseAxes(axes, inRank(0));
  dynamicLengths_ = *lengths;
  Shape out = inShape(0);
  for (size_t j = 0; j < dynamicAxes_.size(); ++j) {
    const int64_t a = dynamicAxes_[j], k = dynamicLengths_[j];
    if (k < 0 || k > out[a])
      throw error("ends - starts is {} on axis {} of size {}: a run-time slice needs 0 <= ends - starts <= size", k,
                  a, out[a]);
    out[a] = k;
  }
  begins_.assign(out.size(), 0);
  steps_.assign(out.size(), 1);
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> SliceOp::getGradOps() {
  if (hasDynamicStarts())
    throw error("no gradient for a Slice whose starts '{}' are computed at run time", inId(1));
  return gradOps<SliceGradOp>(*this);
}

POPART_REGISTER_OP(SliceOp, onnxOp("Slice", {1, 10, 11, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(SliceGradOp, internalOp("SliceGrad"));
} // namespace popart
