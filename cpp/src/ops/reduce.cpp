// Reduce* (ai.onnx): y = reduce(x) over `axes` (all when empty), keepdims=1 keeps
// reduced dims as size 1. ReduceSum >= 13 and the others >= 18 take axes as a
// constant input and honour noop_with_empty_axes.
// Gradients "<Type>Grad" (dY, X, Y -> dX), with dY, Y broadcast back over the reduced
// dims: Sum dy; Mean dy/N; SumSquare 2 x dy; L1 sign(x) dy; L2 x/y dy (0 where y = 0);
// LogSum dy/e^y; LogSumExp e^(x-y) dy; Max/Min dy [x = y] / #ties (ties share equally,
// as torch.amax/amin); Prod y/x dy, with zeros handled as torch (kernels/reduce_grad.cpp).
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

std::vector<std::unique_ptr<Op>> ReduceOp::getGradOps() {
  std::vector<std::unique_ptr<Op>> v;
  const DataType t = inInfo(0).dataType();
  if (t == DataType::FLOAT || t == DataType::FLOAT16 || t == DataType::DOUBLE)
    v.push_back(std::make_unique<ReduceGradOp>(*this));
  return v;
}

ReduceGradOp::ReduceGradOp(const ReduceOp &fwd)
    : Op(internalOp(fwd.opid.type + "Grad"), fwd.settings), xInfo_(fwd.inInfo(0)), keepShape_(fwd.inShape(0)),
      noop_(fwd.isNoop()) {
  for (int64_t a : fwd.axes()) keepShape_[static_cast<size_t>(a)] = 1;
}

const std::vector<GradInOutMapper> &ReduceGradOp::gradInputInfo() const {
  using G = GradOpInType;
  static const std::vector<GradInOutMapper> info{{0, 0, G::GradOut}, {1, 0, G::In}, {2, 0, G::Out}};
  return info;
}

const std::map<int, int> &ReduceGradOp::gradOutToNonGradIn() const {
  static const std::map<int, int> toX{{0, 0}};
  return toX;
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
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceSumGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceMeanGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceProdGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceL1Grad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceL2Grad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceLogSumGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceLogSumExpGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceSumSquareGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceMaxGrad"));
POPART_REGISTER_OP(ReduceGradOp, internalOp("ReduceMinGrad"));

} // namespace popart
