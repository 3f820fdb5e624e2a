// Ctc (ai.graphcore 1): connectionist temporal classification loss of log-probabilities
// lp [T, N, C] for targets [N, S] with lengths: loss_n = -log sum over the alignments of
// target n of prod_t p_t(path_t), by the alpha-beta recursion in log space. Reduction 0 Sum,
// 1 Mean (sum_n loss_n / max(targetLength_n, 1) / N, as torch's 'mean'), 2 none ([N]).
// Output 1 holds d loss_n / d lp[t, n, c] = -exp(logsum_{s: l'_s = c} alpha_t(s) beta_t(s) - lp + loss_n);
// the gradient (CtcGrad) scales it by the incoming loss gradient and the reduction.
// CtcBeamSearchDecoder (ai.graphcore 1): the topPaths most likely label sequences by prefix beam
// search: their log-probabilities [N, topPaths], lengths [N, topPaths], labels [N, topPaths, T] (0 past
// each length; paths beyond the beams found have log-probability -inf and length 0).
#include "loss_reduction.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

bool ctcIndexType(DataType t) { return t == DataType::UINT32 || t == DataType::INT32 || t == DataType::INT64; }

void checkCtcIndex(const Op &op, InIndex i, const char *name, const Shape &want) {
  const auto &info = op.inInfo(i);
  if (!ctcIndexType(info.dataType()))
    throw error("input {} ({}) must be UINT32, INT32 or INT64, got {}", i, name, info.data_type());
  if (info.shape() != want) throw error("input {} ({}) has shape {}, expected {}", i, name, info.shape(), want);
}

int64_t ctcBlank(const Op &op, int64_t numClasses) {
  int64_t blank = op.attr<Attributes::Int>("blank", 0);
  if (blank < 0 || blank >= numClasses)
    throw error("attribute blank {} out of range for {} classes", blank, numClasses);
  return blank;
}

/// CtcGrad: inputs d loss_n / d lp (0, forward output 1), target lengths (1), dLoss (2) -> dLogProbs.
class CtcGradOp final : public Op {
public:
  explicit CtcGradOp(const Op &fwd) : Op(internalOp("CtcGrad"), fwd.settings), lpInfo_(fwd.inInfo(0)) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = lpInfo_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    using G = GradOpInType;
    static const std::vector<GradInOutMapper> in{{0, 1, G::Out}, {1, 3, G::In}, {2, 0, G::GradOut}};
    return in;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }

private:
  TensorInfo lpInfo_;
};

class CtcOp final : public Op {  // inputs: logProbs, targets, inputLengths, targetLengths
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool isLossOp() const override { return true; }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<CtcGradOp>(*this); }
  void setup() override {
    const auto &lp = inInfo(0);
    if (lp.rank() != 3) throw error("input 0 (logProbs) must be [T, N, C], got shape {}", lp.shape());
    if (lp.dataType() != DataType::FLOAT && lp.dataType() != DataType::FLOAT16)
      throw error("input 0 (logProbs) must be FLOAT or FLOAT16, got {}", lp.data_type());
    const int64_t n = lp.dim(1);
    ctcBlank(*this, lp.dim(2));
    if (inRank(1) != 2) throw error("input 1 (targets) must be [N, S], got shape {}", inShape(1));
    checkCtcIndex(*this, 1, "targets", {n, inShape(1)[1]});
    checkCtcIndex(*this, 2, "inputLengths", {n});
    checkCtcIndex(*this, 3, "targetLengths", {n});
    int64_t reduction = lossReduction(*this);
    auto outType = outDataType(lp.dataType());
    outInfo(0) = TensorInfo(outType, reduction == 2 ? Shape{n} : Shape{});
    outInfo(1) = TensorInfo(outType, lp.shape());
  }

private:
  DataType outDataType(DataType lpType) const {
    std::string name = attr<Attributes::String>("outDataType", "UNDEFINED");
    if (name == "UNDEFINED") return lpType;
    DataType t = dataTypeFromString(name);
    if (t != DataType::FLOAT && t != DataType::FLOAT16)
      throw error("attribute outDataType must be UNDEFINED, FLOAT or FLOAT16, got '{}'", name);
    return t;
  }
};

class CtcBeamSearchDecoderOp final : public Op {  // inputs: logProbs [T, N, C], dataLengths [N]
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &lp = inInfo(0);
    if (lp.rank() != 3) throw error("input 0 (logProbs) must be [T, N, C], got shape {}", lp.shape());
    if (lp.dataType() != DataType::FLOAT && lp.dataType() != DataType::FLOAT16)
      throw error("input 0 (logProbs) must be FLOAT or FLOAT16, got {}", lp.data_type());
    const int64_t t = lp.dim(0), n = lp.dim(1);
    ctcBlank(*this, lp.dim(2));
    checkCtcIndex(*this, 1, "dataLengths", {n});
    int64_t width = attr<Attributes::Int>("beam_width", 100), paths = attr<Attributes::Int>("top_paths", 1);
    if (width < 1) throw error("attribute beam_width must be at least 1, got {}", width);
    if (paths < 1 || paths > width)
      throw error("attribute top_paths must be in [1, beam_width = {}], got {}", width, paths);
    outInfo(0) = TensorInfo(lp.dataType(), {n, paths});
    outInfo(1) = TensorInfo(DataType::UINT32, {n, paths});
    outInfo(2) = TensorInfo(DataType::UINT32, {n, paths, t});
  }
};

} // namespace
POPART_REGISTER_OP(CtcOp, graphcoreOp("Ctc", {1}), {DataType::FLOAT, DataType::FLOAT16});
POPART_REGISTER_OP(CtcGradOp, internalOp("CtcGrad"));
POPART_REGISTER_OP(CtcBeamSearchDecoderOp, graphcoreOp("CtcBeamSearchDecoder", {1}),
                   {DataType::FLOAT, DataType::FLOAT16});
} // namespace popart
