// The reduction attribute of the ONNX losses (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss), read by the op and its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {
enum class OnnxLossReduction { None, Sum, Mean };
OnnxLossReduction onnxLossReduction(const Op &op);
} // namespace popart
