// PopART's named patterns. Every PopART pattern name is registered with PopART's
// level membership (mandatory ones are in Minimal, Default and All; default ones in
// Default and All; the rest only in All). Where the rewrite the name stands for
// changes this IR it is implemented below; the others have nothing to rewrite on
// the CPU (docs/patterns.md says why for each) and are registered without a rewrite.
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/patterns.hpp"
#include "popart/tensor.hpp"
#include <cstring>
#include <numeric>

namespace popart {
namespace {

bool isOnnx(const Op *op, const char *type) { return op->opid.domain == Domain::ai_onnx && op->opid.type == type; }

bool isInternal(const Tensor *t) { return !t->isGraphOutput() && !t->getIr().getDataFlow().isAnchored(t->id); }

/// Replaces `op` by a new op `opid` reading `ins` and writing `op`'s output 0; settings are kept.
void replaceOp(Op *op, const OperatorIdentifier &opid, const std::map<InIndex, TensorId> &ins,
               const Attributes &attrs = {}) {
  Graph &g = op->getGraph();
  Op::Settings settings = op->settings;
  TensorId out = op->outId(0);
  g.eraseOp(op->id);
  g.connectAndSetup(g.moveIntoGraph(OpManager::createOp(opid, settings, attrs)), ins, {{0, out}});
}

/// Consumers of `from` read `to` instead.
void rewire(Graph &g, const TensorId &from, const TensorId &to) {
  Tensor *t = g.getTensor(from);
  std::vector<std::pair<Op *, std::vector<int>>> uses;
  for (Op *c : t->consumers.getOps()) uses.emplace_back(c, c->input->indices(t));
  for (auto &[c, idx] : uses)
    for (int i : idx) {
      c->disconnectInTensor(i);
      c->connectInTensor(i, to);
    }
}

TensorId constInts(Graph &g, const std::string &base, const std::vector<int64_t> &v) {
  TensorId id = g.getIr().createIntermediateTensorId(base);
  g.getTensors().addConstInit(id, TensorInfo(DataType::INT64, {static_cast<int64_t>(v.size())}), v.data());
  return id;
}

std::vector<int64_t> padsOf(const Op *pad) {
  if (pad->opid.version < 11) return pad->attr<Attributes::Ints>("pads");
  const Tensor *p = pad->inTensor(1);
  if (p->tensorType() != TensorType::Const || !p->hasTensorData()) return {1};
  return pad->inConstInts(1);
}

bool allZero(const std::vector<int64_t> &v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

/// OpToIdentity: ops that copy their input unchanged (Pad with all-zero pads,
/// Concat and Sum of one input) become Identity (which IdentityRemoval may then remove).
class OpToIdentity final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!op->hasOutput(0)) return false;
    if (isOnnx(op, "Pad")) return op->hasInput(0) && allZero(padsOf(op));
    return (isOnnx(op, "Concat") || isOnnx(op, "Sum")) && op->input->n() == 1;
  }
  bool apply(Op *op) const override {
    replaceOp(op, onnxOp("Identity", {1}), {{0, op->inId(0)}});
    return true;
  }
};

/// SumToAdd: a Sum of exactly two inputs becomes an Add.
class SumToAdd final : public Pattern {
public:
  bool matches(Op *op) const override { return isOnnx(op, "Sum") && op->input->n() == 2 && op->hasInput(1); }
  bool apply(Op *op) const override {
    replaceOp(op, onnxOp("Add", {7}), {{0, op->inId(0)}, {1, op->inId(1)}});
    return true;
  }
};

/// PreUniRepl: a Sum of a single input that is read by nothing else replicates it;
/// the Sum is removed and its consumers read the input.
class PreUniRepl final : public Pattern {
public:
  bool matches(Op *op) const override {
    return isOnnx(op, "Sum") && op->input->n() == 1 && op->hasOutput(0) && isInternal(op->outTensor(0)) &&
           op->inTensor(0)->consumers.getTotal() == 1;
  }
  bool apply(Op *op) const override {
    Graph &g = op->getGraph();
    TensorId in = op->inId(0), out = op->outId(0);
    g.eraseOp(op->id);
    rewire(g, out, in);
    g.getTensors().remove(out);
    return true;
  }
};

/// NegativeOneScale: Scale by -1 becomes Neg.
class NegativeOneScale final : public Pattern {
public:
  bool matches(Op *op) const override {
    return op->opid.domain == Domain::ai_graphcore && op->opid.type == "Scale" && op->attr<float>("scale", 0.f) == -1.f &&
           isSignedOrFloat(op->inInfo(0).dataType());
  }
  bool apply(Op *op) const override {
    replaceOp(op, onnxOp("Neg", {6}), {{0, op->inId(0)}});
    return true;
  }

private:
  static bool isSignedOrFloat(DataType t) {
    return isFloatingPoint(t) || t == DataType::INT8 || t == DataType::INT16 || t == DataType::INT32 ||
           t == DataType::INT64;
  }
};

std::vector<int64_t> permOf(const Op *t) {
  auto perm = t->attr<Attributes::Ints>("perm", {});
  if (perm.empty()) {
    perm.resize(t->inInfo(0).rank());
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  return perm;
}

/// True when `perm` only moves axes of size 1: the data order is unchanged.
bool onlyMovesUnitAxes(const std::vector<int64_t> &perm, const Shape &in) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (in[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

/// TransposeToIdentityOrReshapePattern: a Transpose with the identity permutation becomes
/// Identity; one that only moves size-1 axes becomes a Reshape.
class TransposeToIdentityOrReshape final : public Pattern {
public:
  bool matches(Op *op) const override {
    return isOnnx(op, "Transpose") && op->hasOutput(0) && onlyMovesUnitAxes(permOf(op), op->inInfo(0).shape());
  }
  bool apply(Op *op) const override {
    auto perm = permOf(op);
    std::vector<int64_t> identity(perm.size());
    std::iota(identity.begin(), identity.end(), 0);
    if (perm == identity) {
      replaceOp(op, onnxOp("Identity", {1}), {{0, op->inId(0)}});
    } else {
      TensorId shape = constInts(op->getGraph(), "TransposeToReshape_shape", op->outInfo(0).shape());
      replaceOp(op, onnxOp("Reshape", {5}), {{0, op->inId(0)}, {1, shape}});
    }
    return true;
  }
};

/// ExpandCast: Cast(Expand(x)) becomes Expand(Cast(x)), so the cast reads the small tensor.
class ExpandCast final : public Pattern {
public:
  bool matches(Op *op) const override {
    if (!isOnnx(op, "Cast") || !op->hasInput(0)) return false;
    const Tensor *mid = op->inTensor(0);
    const Op *ex = mid->hasProducer() ? mid->getProducer() : nullptr;
    return ex && isOnnx(ex, "Expand") && isInternal(mid) && mid->consumers.getTotal() == 1 &&
           ex->inInfo(0).nelms() < ex->outInfo(0).nelms();
  }
  bool apply(Op *cast) const override {
    Graph &g = cast->getGraph();
    Op *ex = cast->inTensor(0)->getProducer();
    TensorId x = ex->inId(0), shape = ex->inId(1), mid = ex->outId(0), out = cast->outId(0);
    Op::Settings castSettings = cast->settings, exSettings = ex->settings;
    Attributes castAttrs = cast->attributes();
    OperatorIdentifier castId = cast->opid, exId = ex->opid;
    g.eraseOp(cast->id);
    g.eraseOp(ex->id);
    g.getTensors().remove(mid);
    TensorId small = g.getIr().createIntermediateTensorId("ExpandCast_" + x);
    g.connectAndSetup(g.moveIntoGraph(OpManager::createOp(castId, castSettings, castAttrs)), {{0, x}}, {{0, small}});
    g.connectAndSetup(g.moveIntoGraph(OpManager::createOp(exId, exSettings, {})), {{0, small}, {1, shape}},
                      {{0, out}});
    return true;
  }
};

/// UpsampleToResize: Upsample (opset 7: scales attribute; opset 9: scales input) becomes Resize-10.
class UpsampleToResize final : public Pattern {
public:
  bool matches(Op *op) const override { return isOnnx(op, "Upsample") && op->hasOutput(0); }
  bool apply(Op *op) const override {
    Graph &g = op->getGraph();
    Attributes attrs;
    attrs.setAttribute("mode", op->attr<std::string>("mode", "nearest"));
    TensorId scales;
    if (op->opid.version < 9) {
      auto s = op->attr<Attributes::Floats>("scales");
      scales = g.getIr().createIntermediateTensorId("UpsampleToResize_scales");
      g.getTensors().addConstInit(scales, TensorInfo(DataType::FLOAT, {static_cast<int64_t>(s.size())}), s.data());
    } else {
      scales = op->inId(1);
    }
    replaceOp(op, onnxOp("Resize", {10}), {{0, op->inId(0)}, {1, scales}}, attrs);
    return true;
  }
};

/// ZerosLikeOpPattern: ZerosLike becomes a constant zero tensor of its output's type and shape.
class ZerosLike final : public Pattern {
public:
  bool matches(Op *op) const override {
    return op->opid.domain == Domain::ai_graphcore && op->opid.type == "ZerosLike" && op->hasOutput(0) &&
           isInternal(op->outTensor(0));
  }
  bool apply(Op *op) const override {
    Graph &g = op->getGraph();
    TensorId out = op->outId(0);
    TensorInfo info = op->outInfo(0);
    g.eraseOp(op->id);
    TensorId zeros = g.getIr().createIntermediateTensorId("zeros_" + out);
    std::vector<char> bytes(static_cast<size_t>(info.nbytes()), 0);
    g.getTensors().addConstInit(zeros, info, bytes.data());
    rewire(g, out, zeros);
    g.getTensors().remove(out);
    return true;
  }
};

/// A PopART pattern name whose rewrite has nothing to do in this IR.
class NoRewrite final : public Pattern {
public:
  bool matches(Op *) const override { return false; }
  bool apply(Op *) const override { return false; }
};

using L = PatternsLevel;
// Mandatory in PopART: in Minimal, Default and All, and required at session creation.
#define POPART_MANDATORY(CLASS, NAME) POPART_REGISTER_PATTERN(CLASS, NAME, true, L::Minimal, L::Default)
#define POPART_DEFAULT(CLASS, NAME) POPART_REGISTER_PATTERN(CLASS, NAME, false, L::Default)
#define POPART_ALL_ONLY(CLASS, NAME) POPART_REGISTER_PATTERN(CLASS, NAME, false, L::All)

} // namespace

// Rewrites that change this IR.
POPART_DEFAULT(PreUniRepl, "PreUniRepl");
POPART_DEFAULT(OpToIdentity, "OpToIdentity");
POPART_DEFAULT(NegativeOneScale, "NegativeOneScale");
POPART_DEFAULT(ExpandCast, "ExpandCast");
POPART_DEFAULT(TransposeToIdentityOrReshape, "TransposeToIdentityOrReshapePattern");
POPART_MANDATORY(UpsampleToResize, "UpsampleToResize");
POPART_MANDATORY(ZerosLike, "ZerosLikeOpPattern");
POPART_ALL_ONLY(SumToAdd, "SumToAdd");

// Names with nothing to rewrite on the CPU (docs/patterns.md).
POPART_DEFAULT(NoRewrite, "PostNRepl");
POPART_DEFAULT(NoRewrite, "SoftmaxGradDirect");
POPART_DEFAULT(NoRewrite, "NlllWithSoftmaxGradDirect");
POPART_DEFAULT(NoRewrite, "ConvFlipWeightsDoubleFlip");
POPART_DEFAULT(NoRewrite, "SplitGradOpToConcat");
POPART_DEFAULT(NoRewrite, "SplitOp");
POPART_DEFAULT(NoRewrite, "InitAccumulate");
POPART_DEFAULT(NoRewrite, "LambSerialisedWeight");
POPART_DEFAULT(NoRewrite, "TiedGather");
POPART_DEFAULT(NoRewrite, "TiedGatherAccumulate");
POPART_DEFAULT(NoRewrite, "Slice2SliceSubsample");
POPART_ALL_ONLY(NoRewrite, "SplitGather");
POPART_ALL_ONLY(NoRewrite, "PadSum");
POPART_ALL_ONLY(NoRewrite, "LSTMOp");
POPART_ALL_ONLY(NoRewrite, "RemoveUnnecessaryLossGradCast");
POPART_MANDATORY(NoRewrite, "AbsGradOp");
POPART_MANDATORY(NoRewrite, "AllReduceToIdentity");
POPART_MANDATORY(NoRewrite, "Atan2Arg0GradOp");
POPART_MANDATORY(NoRewrite, "Atan2Arg1GradOp");
POPART_MANDATORY(NoRewrite, "ConvDataGrad");
POPART_MANDATORY(NoRewrite, "ConvFlipWeightsGradOp");
POPART_MANDATORY(NoRewrite, "ConvTranspose");
POPART_MANDATORY(NoRewrite, "CosGradOp");
POPART_MANDATORY(NoRewrite, "CoshOp");
POPART_MANDATORY(NoRewrite, "DecomposeBinaryConstScalar");
POPART_MANDATORY(NoRewrite, "DivArg0GradOp");
POPART_MANDATORY(NoRewrite, "DivArg1GradOp");
POPART_MANDATORY(NoRewrite, "ExpGradOp");
POPART_MANDATORY(NoRewrite, "Expm1GradOp");
POPART_MANDATORY(NoRewrite, "FmodArg0GradOp");
POPART_MANDATORY(NoRewrite, "Log1pGradOp");
POPART_MANDATORY(NoRewrite, "LogGradOp");
POPART_MANDATORY(NoRewrite, "LoopScanOut");
POPART_MANDATORY(NoRewrite, "MatMulLhsGradOp");
POPART_MANDATORY(NoRewrite, "MatMulOp");
POPART_MANDATORY(NoRewrite, "MatMulRhsGradOp");
POPART_MANDATORY(NoRewrite, "MulArgGradOp");
POPART_MANDATORY(NoRewrite, "PackedDataBlock");
POPART_MANDATORY(NoRewrite, "PowArg0GradOp");
POPART_MANDATORY(NoRewrite, "PowArg1GradOp");
POPART_MANDATORY(NoRewrite, "RandomNormalLikeOpPattern");
POPART_MANDATORY(NoRewrite, "RandomUniformLikeOpPattern");
POPART_MANDATORY(NoRewrite, "ReciprocalGradOp");
POPART_MANDATORY(NoRewrite, "ScanToLoop");
POPART_MANDATORY(NoRewrite, "SinGradOp");
POPART_MANDATORY(NoRewrite, "SqrtGradOp");
POPART_MANDATORY(NoRewrite, "SubtractArg1GradOp");

} // namespace popart
