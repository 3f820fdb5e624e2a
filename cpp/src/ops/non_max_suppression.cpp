// NonMaxSuppression (ai.onnx 10, 11): per batch and class, boxes with score > score_threshold (when given)
// are taken in order of decreasing score (ties: lower box index first); a box is kept unless its IoU with
// a box already kept for that class is > iou_threshold, until max_output_boxes_per_class are kept (0 when
// absent); NaN scores are never selected. Boxes are [y1, x1, y2, x2] (corners in any order) or, with
// center_point_box, [xc, yc, w, h].
// Output: INT64 [selected, 3] rows (batch, class, box). The count depends on the values and shapes are
// static, so every input must be a constant; the op is then folded at import. No gradient.
#include "ops/non_max_suppression.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>
#include <cmath>

namespace popart {
namespace {

struct NmsBox {
  float x0, y0, x1, y1;
  float area() const { return (x1 - x0) * (y1 - y0); }
};

NmsBox nmsBox(const float *b, bool center) {
  if (center) return {b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2};
  return {std::min(b[1], b[3]), std::min(b[0], b[2]), std::max(b[1], b[3]), std::max(b[0], b[2])};
}

/// IoU(a, b) > threshold; boxes without area or overlap never suppress.
bool nmsSuppresses(const NmsBox &a, const NmsBox &b, float threshold) {
  const float ix0 = std::max(a.x0, b.x0), ix1 = std::min(a.x1, b.x1);
  const float iy0 = std::max(a.y0, b.y0), iy1 = std::min(a.y1, b.y1);
  if (ix1 <= ix0 || iy1 <= iy0) return false;
  const float inter = (ix1 - ix0) * (iy1 - iy0), areaA = a.area(), areaB = b.area();
  const float uni = areaA + areaB - inter;
  if (inter <= 0 || areaA <= 0 || areaB <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

/// Keeps the boxes of one (batch, class) in scratch.kept.
void nmsOneClass(const NmsProblem &p, int64_t b, int64_t c, NmsScratch &s) {
  const float *scores = p.scores + (b * p.classes + c) * p.numBoxes, *boxes = p.boxes + b * p.numBoxes * 4;
  s.candidates.clear();
  s.kept.clear();
  for (int64_t i = 0; i < p.numBoxes; ++i)
    if (!std::isnan(scores[i]) && (!p.hasScoreThreshold || scores[i] > p.scoreThreshold))
      s.candidates.emplace_back(scores[i], i);
  std::sort(s.candidates.begin(), s.candidates.end(), [](const auto &l, const auto &r) {
    return l.first > r.first || (l.first == r.first && l.second < r.second);
  });
  for (const auto &[score, i] : s.candidates) {
    if (static_cast<int64_t>(s.kept.size()) >= p.maxPerClass) break;
    const NmsBox box = nmsBox(boxes + i * 4, p.centerPointBox);
    bool keep = true;
    for (int64_t k : s.kept)
      if (nmsSuppresses(box, nmsBox(boxes + k * 4, p.centerPointBox), p.iouThreshold)) {
        keep = false;
        break;
      }
    if (keep) s.kept.push_back(i);
  }
}

} // namespace

int64_t nmsSelect(const NmsProblem &p, NmsScratch &scratch, int64_t *out, int64_t capacity) {
  int64_t n = 0;
  for (int64_t b = 0; b < p.batches; ++b)
    for (int64_t c = 0; c < p.classes; ++c) {
      nmsOneClass(p, b, c, scratch);
      for (int64_t i : scratch.kept) {
        if (out && n < capacity) out[3 * n] = b, out[3 * n + 1] = c, out[3 * n + 2] = i;
        ++n;
      }
    }
  return n;
}

namespace {

class NonMaxSuppressionOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {0, 1, 2, 3, 4}; }
  void setup() override {
    const Shape &b = inShape(0), &s = inShape(1);
    if (b.size() != 3 || b[2] != 4) throw error("input 0 (boxes) must be [batches, boxes, 4], got {}", b);
    if (s.size() != 3 || s[0] != b[0] || s[2] != b[1])
      throw error("input 1 (scores) must be [{}, classes, {}] to match the boxes, got {}", b[0], b[1], s);
    const int64_t center = attr<Attributes::Int>("center_point_box", 0);
    if (center != 0 && center != 1) throw error("attribute center_point_box={} must be 0 or 1", center);
    checkScalar(2, DataType::INT64, "max_output_boxes_per_class");
    checkScalar(3, DataType::FLOAT, "iou_threshold");
    checkScalar(4, DataType::FLOAT, "score_threshold");
    for (InIndex i = 0; i < 5; ++i)
      if (hasInput(i) && !inIsConst(i))
        throw error("input {} ('{}') must be a constant known at compile time: the output shape depends on "
                    "the input values, and shapes are static", i, inId(i));
    const std::vector<double> maxOut = constFloats(2), iou = constFloats(3), score = constFloats(4);
    if (!iou.empty() && (iou[0] < 0 || iou[0] > 1))
      throw error("input 3 (iou_threshold) must be in [0, 1], got {}", iou[0]);
    const std::vector<double> boxes64 = inConstFloats(0), scores64 = inConstFloats(1);
    const std::vector<float> boxes(boxes64.begin(), boxes64.end()), scores(scores64.begin(), scores64.end());
    NmsProblem p{boxes.data(), scores.data(), b[0], s[1], b[1], maxOut.empty() ? 0 : static_cast<int64_t>(maxOut[0]),
                 iou.empty() ? 0.0f : static_cast<float>(iou[0]), score.empty() ? 0.0f : static_cast<float>(score[0]),
                 !score.empty(), center == 1};
    NmsScratch scratch;
    outInfo(0) = TensorInfo(DataType::INT64, Shape{nmsSelect(p, scratch, nullptr, 0), 3});
  }

private:
  void checkScalar(InIndex i, DataType t, const char *name) const {
    if (hasInput(i) && (inInfo(i).dataType() != t || inInfo(i).nelms() != 1))
      throw error("input {} ({}) must be one {} value, got {} {}", i, name, toString(t), inInfo(i).data_type(),
                  inShape(i));
  }
  std::vector<double> constFloats(InIndex i) const { return hasInput(i) ? inConstFloats(i) : std::vector<double>{}; }
};

} // namespace
POPART_REGISTER_OP(NonMaxSuppressionOp, onnxOp("NonMaxSuppression", {10, 11}), {DataType::FLOAT});
} // namespace popart
