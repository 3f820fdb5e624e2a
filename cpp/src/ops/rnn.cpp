// Recurrent ops, per direction d and time step t (ONNX gate orders; W, R row blocks per gate):
//   RNN:  H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)
//   GRU:  z, r = f(X_t W_zr^T + H_{t-1} R_zr^T + b), h~ = g(X_t W_h^T + (r . H_{t-1}) R_h^T + Rb_h + Wb_h)
//         (linear_before_reset: g(X_t W_h^T + r . (H_{t-1} R_h^T + Rb_h) + Wb_h)), H_t = (1 - z) h~ + z H_{t-1}
//   LSTM: i, f = f(.. + P_{i,f} . C_{t-1}), c~ = g(..), C_t = f C_{t-1} + i c~, o = f(.. + P_o . C_t), H_t = o h(C_t)
// with optional clip of the pre-activations, sequence_lens, initial states, reverse/bidirectional directions.
// ai.graphcore LSTM is the same LSTM cell with its weights concatenated per gate (see rnn.hpp).
// Gradients: backpropagation through time (kernels in cpu/kernels/rnn_engine.cpp), one grad op producing
// the gradients of every float input from the gradients of the outputs.
#include "rnn.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>
#include <cctype>

namespace popart {
namespace {

struct RnnActSpec {
  const char *name;
  RnnAct kind;
  int params;  // 0: none, 1: alpha, 2: alpha and beta
  float alpha, beta;
};

constexpr RnnActSpec kRnnActs[] = {
    {"relu", RnnAct::Relu, 0, 0, 0},
    {"tanh", RnnAct::Tanh, 0, 0, 0},
    {"sigmoid", RnnAct::Sigmoid, 0, 0, 0},
    {"affine", RnnAct::Affine, 2, 1.f, 0.f},
    {"leakyrelu", RnnAct::LeakyRelu, 1, 0.01f, 0},
    {"thresholdedrelu", RnnAct::ThresholdedRelu, 1, 1.f, 0},
    {"scaledtanh", RnnAct::ScaledTanh, 2, 1.f, 1.f},
    {"hardsigmoid", RnnAct::HardSigmoid, 2, 0.2f, 0.5f},
    {"elu", RnnAct::Elu, 1, 1.f, 0},
    {"softsign", RnnAct::Softsign, 0, 0, 0},
    {"softplus", RnnAct::Softplus, 0, 0, 0},
};

// activation_alpha / activation_beta are consumed in order by the activations that take them.
std::vector<RnnActivation> rnnActivations(const Op &op, const RnnConfig &c) {
  std::vector<std::string> names = op.attr<Attributes::Strings>("activations", {});
  const size_t want = static_cast<size_t>(c.numActs() * c.dirs);
  if (names.empty()) {
    const char *dflt[] = {c.cell == RnnCell::Rnn ? "Tanh" : "Sigmoid", "Tanh", "Tanh"};
    names.assign(dflt, dflt + c.numActs());
  }
  if (names.size() == static_cast<size_t>(c.numActs()) && c.dirs == 2) {
    const std::vector<std::string> one = names;
    names.insert(names.end(), one.begin(), one.end());
  }
  if (names.size() != want)
    throw error("attribute activations has {} entries, expected {} ({} per direction)", names.size(), want,
                c.numActs());
  auto alphas = op.attr<Attributes::Floats>("activation_alpha", {});
  auto betas = op.attr<Attributes::Floats>("activation_beta", {});
  size_t ia = 0, ib = 0;
  std::vector<RnnActivation> acts;
  for (const auto &n : names) {
    std::string lower(n);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    auto it = std::find_if(std::begin(kRnnActs), std::end(kRnnActs),
                           [&](const RnnActSpec &s) { return lower == s.name; });
    if (it == std::end(kRnnActs))
      throw error("attribute activations has unsupported value '{}' (expected Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
                  "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign or Softplus)", n);
    RnnActivation a{it->kind, it->alpha, it->beta};
    if (it->params >= 1 && ia < alphas.size()) a.alpha = alphas[ia++];
    if (it->params >= 2 && ib < betas.size()) a.beta = betas[ib++];
    acts.push_back(a);
  }
  return acts;
}

void rnnExpectShape(const Op &op, InIndex i, const char *name, const Shape &want) {
  if (op.hasInput(i) && op.inShape(i) != want)
    throw error("input {} has shape {}, expected {}", name, op.inShape(i), want);
}

void rnnExpectFloat(const Op &op, InIndex i, const char *name) {
  if (op.hasInput(i) && op.inInfo(i).dataType() != op.inInfo(0).dataType())
    throw error("input {} has type {}, expected {} (the type of X)", name, op.inInfo(i).data_type(),
                op.inInfo(0).data_type());
}

void rnnCheckInputs(const Op &op, const RnnConfig &c) {
  const int64_t gh = c.gates() * c.hidden;
  rnnExpectShape(op, kRnnW, "W", {c.dirs, gh, c.input});
  rnnExpectShape(op, kRnnB, "B", {c.dirs, 2 * gh});
  rnnExpectShape(op, kRnnSeqLens, "sequence_lens", {c.batch});
  const Shape state = c.batchMajor ? Shape{c.batch, c.dirs, c.hidden} : Shape{c.dirs, c.batch, c.hidden};
  rnnExpectShape(op, kRnnInitH, "initial_h", state);
  if (c.cell == RnnCell::Lstm) {
    rnnExpectShape(op, kRnnInitC, "initial_c", state);
    rnnExpectShape(op, kRnnP, "P", {c.dirs, 3 * c.hidden});
  } else if (op.hasInput(kRnnInitC) || op.hasInput(kRnnP)) {
    throw error("has {} inputs; only LSTM takes initial_c and P (at most 6 inputs)", op.input->maxIndex());
  }
  const char *names[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  for (InIndex i : {kRnnW, kRnnR, kRnnB, kRnnInitH, kRnnInitC, kRnnP}) rnnExpectFloat(op, i, names[i]);
  if (op.hasInput(kRnnSeqLens) && op.inInfo(kRnnSeqLens).dataType() != DataType::INT32)
    throw error("input sequence_lens has type {}, expected INT32", op.inInfo(kRnnSeqLens).data_type());
}

} // namespace

RnnCell rnnCellOf(const std::string &type) {
  if (type.rfind("LSTM", 0) == 0 || type.rfind("PopartLSTM", 0) == 0) return RnnCell::Lstm;
  return type.rfind("GRU", 0) == 0 ? RnnCell::Gru : RnnCell::Rnn;
}

RnnConfig onnxRnnConfig(const Op &op, RnnCell cell) {
  RnnConfig c;
  c.cell = cell;
  if (op.inRank(kRnnX) != 3) throw error("input X must have rank 3, got shape {}", op.inShape(kRnnX));
  if (op.inRank(kRnnR) != 3)
    throw error("input R must have rank 3 [num_directions, {} * hidden_size, hidden_size], got shape {}", c.gates(),
                op.inShape(kRnnR));
  const auto layout = op.attr<Attributes::Int>("layout", 0);
  if (layout != 0 && layout != 1) throw error("attribute layout has unsupported value {} (expected 0 or 1)", layout);
  c.batchMajor = layout == 1;
  const Shape &x = op.inShape(kRnnX), &r = op.inShape(kRnnR);
  c.seq = c.batchMajor ? x[1] : x[0];
  c.batch = c.batchMajor ? x[0] : x[1];
  c.input = x[2];
  c.hidden = r[2];
  const auto dir = op.attr<Attributes::String>("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    throw error("attribute direction has unsupported value '{}' (expected forward, reverse or bidirectional)", dir);
  c.dirs = dir == "bidirectional" ? 2 : 1;
  c.reverse = dir == "reverse";
  const auto hs = op.attr<Attributes::Int>("hidden_size", c.hidden);
  if (r != Shape{c.dirs, c.gates() * c.hidden, c.hidden} || hs != c.hidden)
    throw error("input R has shape {}, expected [{}, {} * hidden_size, hidden_size] with hidden_size {}", r, c.dirs,
                c.gates(), hs);
  c.hasClip = op.attributes().hasAttribute("clip");
  c.clip = op.attr<Attributes::Float>("clip", 0.f);
  if (c.hasClip && !(c.clip > 0)) throw error("attribute clip must be positive, got {}", c.clip);
  c.inputForget = cell == RnnCell::Lstm && op.attr<Attributes::Int>("input_forget", 0) != 0;
  c.linearBeforeReset = cell == RnnCell::Gru && op.attr<Attributes::Int>("linear_before_reset", 0) != 0;
  c.acts = rnnActivations(op, c);
  rnnCheckInputs(op, c);
  return c;
}

RnnConfig graphcoreLstmConfig(const Op &op) {
  RnnConfig c;
  const Shape &x = op.inShape(0), &w = op.inShape(1);
  if (x.size() != 3) throw error("input X must have rank 3 [seq, batch, input], got shape {}", x);
  if (w.size() != 3 || w[0] != 4 || w[1] <= x[2] || w[1] != x[2] + w[2])
    throw error("input weights has shape {}, expected [4, input_size + hidden_size, hidden_size] with input_size {}",
                w, x[2]);
  c.seq = x[0], c.batch = x[1], c.input = x[2], c.hidden = w[2];
  c.acts = {{RnnAct::Sigmoid, 0, 0}, {RnnAct::Tanh, 0, 0}, {RnnAct::Tanh, 0, 0}};
  if (op.hasInput(2) && op.inShape(2) != Shape{4, c.hidden})
    throw error("input biases has shape {}, expected [4, {}]", op.inShape(2), c.hidden);
  if (op.hasInput(3) && op.inShape(3) != Shape{2, c.batch, c.hidden})
    throw error("input initial_state has shape {}, expected [2, {}, {}]", op.inShape(3), c.batch, c.hidden);
  for (InIndex i : {1, 2, 3})
    if (op.hasInput(i) && op.inInfo(i).dataType() != op.inInfo(0).dataType())
      throw error("input {} has type {}, expected {}", i, op.inInfo(i).data_type(), op.inInfo(0).data_type());
  return c;
}

namespace {

/// Inputs: the forward op's inputs at their indices, then the gradients of its outputs
/// (at numFwdIn + output index); outputs: the gradients of the float inputs, at their indices.
class RnnGradOp final : public Op {
public:
  RnnGradOp(const Op &fwd, const std::string &type, int numFwdIn, int numFwdOut)
      : Op(internalOp(type), fwd.settings) {
    attributes() = fwd.attributes();
    for (int i = 0; i < numFwdIn; ++i) {
      if (!fwd.hasInput(i)) continue;
      inMap_.push_back({i, i, GradOpInType::In});
      if (isFloatingPoint(fwd.inInfo(i).dataType())) outMap_[i] = i;
    }
    for (int o = 0; o < numFwdOut; ++o)
      if (fwd.hasOutput(o)) inMap_.push_back({numFwdIn + o, o, GradOpInType::GradOut});
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    for (const auto &[gOut, fwdIn] : outMap_)
      if (hasOutput(gOut)) outInfo(gOut) = inInfo(fwdIn);
  }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return inMap_; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return outMap_; }

private:
  std::vector<GradInOutMapper> inMap_;
  std::map<int, int> outMap_;
};

class OnnxRnnOp final : public Op {  // inputs: RnnIn; outputs Y, Y_h (, Y_c), each optional
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (opid.version < 14 && attributes().hasAttribute("layout"))
      throw error("attribute layout needs opset 14 or later (this op is opset {})", opid.version);
    RnnConfig c = onnxRnnConfig(*this, rnnCellOf(opid.type));
    const DataType t = inInfo(kRnnX).dataType();
    const Shape state = c.batchMajor ? Shape{c.batch, c.dirs, c.hidden} : Shape{c.dirs, c.batch, c.hidden};
    if (hasOutput(0))
      outInfo(0) = TensorInfo(t, c.batchMajor ? Shape{c.batch, c.seq, c.dirs, c.hidden}
                                              : Shape{c.seq, c.dirs, c.batch, c.hidden});
    for (OutIndex o : {1, 2})
      if (hasOutput(o)) {
        if (o == 2 && c.cell != RnnCell::Lstm) throw error("{} has no output {}", opid.type, o);
        outInfo(o) = TensorInfo(t, state);
      }
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<RnnGradOp>(*this, opid.type + "Grad", kRnnNumIn, 3));
    return v;
  }
};

/// ai.graphcore LSTM: inputs X, weights, biases?, initial_state?; outputs output, cell_state.
class PopartLstmOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    RnnConfig c = graphcoreLstmConfig(*this);
    const DataType t = inInfo(0).dataType();
    const bool full = attr<Attributes::Int>("outputFullSequence", 1) != 0;
    if (hasOutput(0)) outInfo(0) = TensorInfo(t, full ? Shape{c.seq, c.batch, c.hidden} : Shape{c.batch, c.hidden});
    if (hasOutput(1)) outInfo(1) = TensorInfo(t, Shape{c.batch, c.hidden});
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<RnnGradOp>(*this, "PopartLSTMGrad", 4, 2));
    return v;
  }
};

} // namespace
POPART_REGISTER_OP(OnnxRnnOp, onnxOp("RNN", {1, 7, 14, 22}), floatTypes());
POPART_REGISTER_OP(OnnxRnnOp, onnxOp("GRU", {3, 7, 14, 22}), floatTypes());
POPART_REGISTER_OP(OnnxRnnOp, onnxOp("LSTM", {1, 7, 14, 22}), floatTypes());
POPART_REGISTER_OP(PopartLstmOp, graphcoreOp("LSTM", {1}), floatTypes());
POPART_REGISTER_OP(RnnGradOp, internalOp("RNNGrad"));
POPART_REGISTER_OP(RnnGradOp, internalOp("GRUGrad"));
POPART_REGISTER_OP(RnnGradOp, internalOp("LSTMGrad"));
POPART_REGISTER_OP(RnnGradOp, internalOp("PopartLSTMGrad"));
} // namespace popart
