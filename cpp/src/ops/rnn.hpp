// Configuration of the recurrent ops (ai.onnx RNN/GRU/LSTM, ai.graphcore LSTM), read
// from attributes and input shapes by the ops (ops/rnn.cpp) and their CPU kernels.
#pragma once
#include "popart/op.hpp"
#include <vector>

namespace popart {

enum class RnnCell { Rnn, Gru, Lstm };
enum class RnnAct {
  Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus
};

struct RnnActivation {
  RnnAct kind;
  float alpha, beta;
};

/// Input indices of the ai.onnx ops (the grad ops take the same inputs, then dY, dY_h, dY_c).
enum RnnIn : InIndex { kRnnX = 0, kRnnW, kRnnR, kRnnB, kRnnSeqLens, kRnnInitH, kRnnInitC, kRnnP, kRnnNumIn };

struct RnnConfig {
  RnnCell cell = RnnCell::Lstm;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool reverse = false;     // direction "reverse" (bidirectional: direction 1 is the reversed one)
  bool batchMajor = false;  // layout 1: X [batch, seq, input], Y [batch, seq, dirs, hidden], Y_h [batch, dirs, hidden]
  bool hasClip = false;
  float clip = 0;
  bool inputForget = false, linearBeforeReset = false;
  std::vector<RnnActivation> acts;  // numActs() per direction, direction 0 first

  int64_t gates() const { return cell == RnnCell::Lstm ? 4 : cell == RnnCell::Gru ? 3 : 1; }
  int numActs() const { return cell == RnnCell::Lstm ? 3 : cell == RnnCell::Gru ? 2 : 1; }
  bool reversed(int64_t d) const { return reverse || d == 1; }
};

/// Reads and checks an ai.onnx RNN/GRU/LSTM op (or its grad op: same inputs and attributes).
RnnConfig onnxRnnConfig(const Op &op, RnnCell cell);
/// ai.graphcore LSTM: X [seq, batch, input], weights [4, input + hidden, hidden], biases [4, hidden],
/// initial_state [2, batch, hidden] (h then c); gates in the order forget, input, candidate, output.
RnnConfig graphcoreLstmConfig(const Op &op);
RnnCell rnnCellOf(const std::string &type);

} // namespace popart
