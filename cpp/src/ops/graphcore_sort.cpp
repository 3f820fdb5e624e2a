// Order-statistics ops of ai.graphcore (opset 1):
//   Sort (axis, descending, stable): values = x sorted along axis, indices (INT32) with
//     values[.., j, ..] = x[.., indices[.., j, ..], ..]. Gradient: dx[.., indices[j], ..] = dy[.., j, ..].
//   ReduceMedian (axes, default all; keepdims): the lower median m of the reduced
//     elements (rank (n - 1) / 2 in sorted order) and its INT32 index among them in
//     row-major order. Gradient: dy goes to the median's position, zeros elsewhere.
//   Bucketize (right): y (INT32) = number of boundaries b with b < x (right = 0) or
//     b <= x (right = 1), for boundaries sorted ascending. No gradient.
//   Histogram (levels, absoluteOfInput): UINT32 counts of size len(levels) + 1 with
//     bin 0 = x < levels[0], bin i = levels[i-1] <= x < levels[i], last = x >= levels[-1]
//     (on |x| when absoluteOfInput = 1). No gradient.
#include "ops/graphcore_sort.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void SortOp::setup() {
  if (inRank(0) < 1) throw error("input must have rank >= 1");
  axis_ = shapeutil::normaliseAxis(attr<Attributes::Int>("axis", -1), inRank(0));
  outInfo(0) = inInfo(0);
  if (hasOutput(1)) outInfo(1) = TensorInfo(DataType::INT32, inShape(0));
}

std::vector<std::unique_ptr<Op>> SortOp::getGradOps() {
  if (!hasOutput(1)) throw error("the gradient of Sort needs its indices output (output 1)");
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<IndexScatterGradOp>(internalOp("SortGrad"), *this, std::vector<int64_t>{axis_}));
  return v;
}

void ReduceMedianOp::setup() {
  const int64_t rank = inRank(0);
  if (attributes().hasAttribute("axes")) {
    axes_ = shapeutil::normaliseAxes(attr<Attributes::Ints>("axes"), rank);
    std::sort(axes_.begin(), axes_.end());
  } else {
    axes_.clear();
    for (int64_t a = 0; a < rank; ++a) axes_.push_back(a);
  }
  const bool keep = attr<Attributes::Int>("keepdims", 1) != 0;
  Shape out;
  for (int64_t a = 0; a < rank; ++a) {
    const bool reduced = std::find(axes_.begin(), axes_.end(), a) != axes_.end();
    if (reduced && inShape(0)[a] == 0) throw error("cannot take the median over the empty axis {}", a);
    if (!reduced) out.push_back(inShape(0)[a]);
    else if (keep) out.push_back(1);
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
  if (hasOutput(1)) outInfo(1) = TensorInfo(DataType::INT32, out);
}

std::vector<std::unique_ptr<Op>> ReduceMedianOp::getGradOps() {
  if (!hasOutput(1)) throw error("the gradient of ReduceMedian needs its indices output (output 1)");
  std::vector<std::unique_ptr<Op>> v;
  v.push_back(std::make_unique<IndexScatterGradOp>(internalOp("ReduceMedianGrad"), *this, axes_));
  return v;
}

namespace {

class BucketizeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inRank(1) != 1) throw error("boundaries (input 1) must be 1-D, got shape {}", inShape(1));
    if (inInfo(1).dataType() != inInfo(0).dataType())
      throw error("boundaries (input 1) have type {}, expected the input's type {}", toString(inInfo(1).dataType()),
                  toString(inInfo(0).dataType()));
    outInfo(0) = TensorInfo(DataType::INT32, inShape(0));
  }
};

class HistogramOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &levels = attr<Attributes::Floats>("levels");
    if (levels.empty()) throw error("attribute 'levels' must not be empty");
    if (!std::is_sorted(levels.begin(), levels.end())) throw error("attribute 'levels' must be sorted ascending");
    outInfo(0) = TensorInfo(DataType::UINT32, {static_cast<int64_t>(levels.size()) + 1});
  }
};

} // namespace
POPART_REGISTER_OP(SortOp, graphcoreOp("Sort"), numericTypes());
POPART_REGISTER_OP(ReduceMedianOp, graphcoreOp("ReduceMedian"), numericTypes());
POPART_REGISTER_OP(IndexScatterGradOp, internalOp("SortGrad"));
POPART_REGISTER_OP(IndexScatterGradOp, internalOp("ReduceMedianGrad"));
POPART_REGISTER_OP(BucketizeOp, graphcoreOp("Bucketize"), numericTypes());
POPART_REGISTER_OP(HistogramOp, graphcoreOp("Histogram"), floatTypes());
} // namespace popart
