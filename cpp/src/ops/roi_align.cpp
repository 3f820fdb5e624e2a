// RoiAlign (ai.onnx 10, 16, 22): X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2), batch_indices [R] (INT64)
// -> Y [R, C, output_height, output_width]. Roi corners scale by spatial_scale, minus 0.5 with
// coordinate_transformation_mode half_pixel (opset 16 default; opset 10 has output_half_pixel only, which
// also widens rois to at least 1x1). Each bin takes a grid of sampling_ratio^2 points (0: ceil(roi size /
// bins) per axis), bilinear at each point (0 outside [-1, H] x [-1, W], clamped to the edge inside);
// mode avg averages them, mode max takes the largest weighted corner of any point (as onnxruntime and the
// onnx reference do). Inference only.
#include "ops/roi_align.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void RoiAlignOp::setup() {
  const auto &x = inInfo(0), &rois = inInfo(1), &idx = inInfo(2);
  if (x.rank() != 4) throw error("input 0 (X) must be [N, C, H, W], got {}", x.shape());
  if (rois.rank() != 2 || rois.dim(1) != 4 || rois.dataType() != x.dataType())
    throw error("input 1 (rois) must be [num_rois, 4] of X's type {}, got {} {}", x.data_type(), rois.data_type(),
                rois.shape());
  if (idx.dataType() != DataType::INT64 || idx.shape() != Shape{rois.dim(0)})
    throw error("input 2 (batch_indices) must be INT64 [{}] (one per roi), got {} {}", rois.dim(0), idx.data_type(),
                idx.shape());
  const auto mode = attr<Attributes::String>("mode", "avg");
  if (mode != "avg" && mode != "max") throw error("attribute mode must be 'avg' or 'max', got '{}'", mode);
  max_ = mode == "max";
  const auto ctm = attr<Attributes::String>("coordinate_transformation_mode",
                                            opid.version < 16 ? "output_half_pixel" : "half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    throw error("attribute coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel', got '{}'",
                ctm);
  halfPixel_ = ctm == "half_pixel";
  const int64_t h = attr<Attributes::Int>("output_height", 1), w = attr<Attributes::Int>("output_width", 1);
  if (h < 1 || w < 1) throw error("attributes output_height={} and output_width={} must be positive", h, w);
  const int64_t ratio = attr<Attributes::Int>("sampling_ratio", 0);
  if (ratio < 0) throw error("attribute sampling_ratio={} must be >= 0", ratio);
  outInfo(0) = TensorInfo(x.dataType(), Shape{rois.dim(0), x.dim(1), h, w});
}

POPART_REGISTER_OP(RoiAlignOp, onnxOp("RoiAlign", {10, 16, 22}), floatTypes());
} // namespace popart
