// Reduce* (ai.onnx): y = reduce(x) over `axes` (all when empty), keepdims=1 keeps
// reduced dims as size 1. ReduceSum >= 13 and the others >= 18 take axes as a
// constant input and honour noop_with_empty_axes.
#include "reduce.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>

namespace popart {

bool ReduceOp::axesFromInput() const {
  return opid.domain == Domain::ai_onnx && (opid.version >= 18 || (opid.type == "ReduceSum" && opid.version >= 13));
}

std::vector<InIndex> ReduceOp::constantInputs() const {
  if (axesFromInput()) return {1};
  return {};
}

void ReduceOp::setup() {
  const int64_t rank = inRank(0);
  std::vector<int64_t> axes;
  if (!axesFromInput()) axes = attr<Attributes::Ints>("axes", {});
  else if (hasInput(1) && inInfo(1).nelms() > 0) axes = inConstInts(1);
  noop_ = axes.empty() && axesFromInput() && attr<Attributes::Int>("noop_with_empty_axes", 0) != 0;
  if (noop_) {
    axes_.clear();
    outInfo(0) = inInfo(0);
    return;
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  for (auto &a : axes) {
    if (a < -rank || a >= rank) throw error("axis {} out of range for rank {}", a, rank);
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    throw error("axes contain a repeated axis: {}", axes);
  axes_ = axes;
  const bool keep = attr<Attributes::Int>("keepdims", 1) != 0;
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = std::binary_search(axes_.begin(), axes_.end(), d);
    if (!reduced) out.push_back(inShape(0)[d]);
    else if (keep) out.push_back(1);
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

namespace {
std::vector<DataType> withBool(std::vector<DataType> v) {
  v.push_back(DataType::BOOL);
  return v;
}
} // namespace

POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceSum", {1, 11, 13}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceMean", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceProd", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceL1", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceL2", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceLogSum", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceLogSumExp", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceSumSquare", {1, 11, 13, 18}), numericTypes());
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceMax", {1, 11, 12, 13, 18, 20}), withBool(numericTypes()));
POPART_REGISTER_OP(ReduceOp, onnxOp("ReduceMin", {1, 11, 12, 13, 18, 20}), withBool(numericTypes()));

} // namespace popart
