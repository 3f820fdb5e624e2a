// The selection of NonMaxSuppression, run by the op on its constant inputs (for the output shape)
// and again by its kernel.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace popart {

/// Boxes [batches, boxes, 4] and scores [batches, classes, boxes]; the thresholds of the optional inputs.
struct NmsProblem {
  const float *boxes = nullptr, *scores = nullptr;
  int64_t batches = 0, classes = 0, numBoxes = 0;
  int64_t maxPerClass = 0;
  float iouThreshold = 0, scoreThreshold = 0;
  bool hasScoreThreshold = false, centerPointBox = false;
};

/// Per-class working lists, sized once by the caller (reserve `numBoxes` entries).
struct NmsScratch {
  std::vector<std::pair<float, int64_t>> candidates;  // (score, box)
  std::vector<int64_t> kept;
};

/// Writes [batch, class, box] for each selected box, in the order ONNX specifies, to `out` (room for
/// `capacity` triples; nullptr to count only). Returns the number of selected boxes.
int64_t nmsSelect(const NmsProblem &p, NmsScratch &scratch, int64_t *out, int64_t capacity);

} // namespace popart
