// The ai.onnx.preview.training domain (Adagrad, Adam, Momentum), named by its ops and kernels.
#pragma once
#include "popart/opidentifiers.hpp"
#include <string>

namespace popart {

inline constexpr const char *kPreviewTrainingDomain = "ai.onnx.preview.training";

/// ai.onnx.preview.training `type`, version 1, importable from ONNX.
inline OpIds previewTrainingOp(const std::string &type) {
  OpIds ids;
  ids.ids.emplace_back(kPreviewTrainingDomain, type, 1);
  return ids;
}

/// Tensors per optimised variable: X, G and the optimiser state (Adagrad H; Adam V, H; Momentum V).
inline int previewTrainingGroup(const std::string &type) { return type == "Adam" ? 4 : 3; }

} // namespace popart
