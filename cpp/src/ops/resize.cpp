// Resize (ai.onnx 10, 11, 13, 18, 19), Upsample (7, 9): y[o] = sum_k w_k(o) x[i_k(o)]
// per axis, from the source coordinate of o (coordinate_transformation_mode)
// with nearest/linear/cubic weights. Output dims are floor(d * scale) or `sizes`.
// Gradient (ResizeGrad): dx[i] = sum over (o, k) with i_k(o) = i of w_k(o) dy[o].
#include "ops/resize.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"
#include <cmath>
#include <map>

namespace popart {
namespace {

template <class E> E parseResizeEnum(const std::string &attr, const std::string &v, const std::map<std::string, E> &m) {
  auto it = m.find(v);
  if (it != m.end()) return it->second;
  std::string valid;
  for (const auto &kv : m) valid += (valid.empty() ? "" : ", ") + kv.first;
  throw error("attribute {}='{}' is not supported (expected one of {})", attr, v, valid);
}

} // namespace

bool ResizeOp::isLegacy() const { return opid.type == "Upsample" || opid.version < 11; }

std::vector<InIndex> ResizeOp::constantInputs() const {
  if (opid.type == "Upsample" && opid.version < 9) return {};
  return isLegacy() ? std::vector<InIndex>{1} : std::vector<InIndex>{1, 2, 3};
}

void ResizeOp::readAttributes() {
  using A = Attributes;
  Params p;
  const std::string mode = attr<A::String>("mode", "nearest");
  if (isLegacy()) {
    p.mode = parseResizeEnum<Mode>("mode", mode, {{"nearest", Mode::Nearest}, {"linear", Mode::Linear}});
    params_ = p;
    return;
  }
  p.mode = parseResizeEnum<Mode>("mode", mode, {{"nearest", Mode::Nearest}, {"linear", Mode::Linear},
                                                {"cubic", Mode::Cubic}});
  std::map<std::string, Coord> coords = {
      {"half_pixel", Coord::HalfPixel}, {"pytorch_half_pixel", Coord::PytorchHalfPixel},
      {"align_corners", Coord::AlignCorners}, {"asymmetric", Coord::Asymmetric},
      {"tf_crop_and_resize", Coord::TfCropAndResize}};
  if (opid.version == 11) coords["tf_half_pixel_for_nn"] = Coord::TfHalfPixelForNN;
  if (opid.version >= 19) coords["half_pixel_symmetric"] = Coord::HalfPixelSymmetric;
  p.coord = parseResizeEnum("coordinate_transformation_mode",
                            attr<A::String>("coordinate_transformation_mode", "half_pixel"), coords);
  p.rounding = parseResizeEnum<Rounding>(
      "nearest_mode", attr<A::String>("nearest_mode", "round_prefer_floor"),
      {{"round_prefer_floor", Rounding::RoundPreferFloor}, {"round_prefer_ceil", Rounding::RoundPreferCeil},
       {"floor", Rounding::Floor}, {"ceil", Rounding::Ceil}});
  p.cubicA = attr<A::Float>("cubic_coeff_a", -0.75f);
  p.excludeOutside = attr<A::Int>("exclude_outside", 0) != 0;
  p.extrapolation = attr<A::Float>("extrapolation_value", 0.0f);
  p.antialias = opid.version >= 18 && attr<A::Int>("antialias", 0) != 0;
  if (p.antialias && p.mode == Mode::Nearest) throw error("attribute antialias=1 needs mode linear or cubic");
  params_ = p;
}

std::vector<int64_t> ResizeOp::axesAttr() const {
  std::vector<int64_t> axes;
  if (opid.version >= 18 && attributes().hasAttribute("axes"))
    axes = shapeutil::normaliseAxes(attr<Attributes::Ints>("axes"), inRank(0));
  else
    for (int64_t a = 0; a < inRank(0); ++a) axes.push_back(a);
  return axes;
}

Shape ResizeOp::outputShape() {
  const Shape &in = inShape(0);
  const int64_t rank = inRank(0);
  const std::vector<int64_t> axes = axesAttr();
  const auto n = axes.size();
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (opid.type == "Upsample" && opid.version < 9) {
    for (float s : attr<Attributes::Floats>("scales")) scales.push_back(s);
  } else if (isLegacy() || (hasInput(2) && inInfo(2).nelms() > 0)) {
    scales = inConstFloats(isLegacy() ? 1 : 2);
  }
  if (!isLegacy() && hasInput(3) && inInfo(3).nelms() > 0) sizes = inConstInts(3);
  if (scales.empty() == sizes.empty()) throw error("exactly one of scales and sizes must be given");
  if (!scales.empty() && scales.size() != n) throw error("scales {} must have {} values", scales, n);
  if (!sizes.empty() && sizes.size() != n) throw error("sizes {} must have {} values", sizes, n);

  Shape out = in;
  params_.scales.assign(rank, 1.0);
  if (!scales.empty()) {
    for (size_t i = 0; i < n; ++i) {
      if (!(scales[i] > 0)) throw error("scales {} must be positive", scales);
      params_.scales[axes[i]] = scales[i];
      out[axes[i]] = static_cast<int64_t>(std::floor(static_cast<double>(in[axes[i]]) * scales[i]));
    }
    return out;
  }
  const std::string policy = opid.version >= 18 ? attr<Attributes::String>("keep_aspect_ratio_policy", "stretch")
                                                : std::string("stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    throw error("attribute keep_aspect_ratio_policy='{}' is not supported (expected stretch, not_larger or "
                "not_smaller)", policy);
  double common = policy == "not_larger" ? 1e300 : 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (sizes[i] < 0) throw error("sizes {} must not be negative", sizes);
    const double r = static_cast<double>(sizes[i]) / static_cast<double>(in[axes[i]]);
    common = policy == "not_larger" ? std::min(common, r) : std::max(common, r);
    params_.scales[axes[i]] = r;
    out[axes[i]] = sizes[i];
  }
  if (policy != "stretch")
    for (int64_t a : axes) {
      params_.scales[a] = common;
      out[a] = static_cast<int64_t>(common * static_cast<double>(in[a]) + 0.5);
    }
  return out;
}

void ResizeOp::setup() {
  readAttributes();
  Shape out = outputShape();
  const int64_t rank = inRank(0);
  params_.roiStart.assign(rank, 0.0);
  params_.roiEnd.assign(rank, 1.0);
  if (params_.coord == Coord::TfCropAndResize) {
    if (!hasInput(1) || inInfo(1).nelms() == 0)
      throw error("coordinate_transformation_mode tf_crop_and_resize needs roi");
    const std::vector<int64_t> axes = axesAttr();
    std::vector<double> roi = inConstFloats(1);
    if (roi.size() != 2 * axes.size()) throw error("roi {} must have {} values", roi, 2 * axes.size());
    for (size_t i = 0; i < axes.size(); ++i) {
      params_.roiStart[axes[i]] = roi[i];
      params_.roiEnd[axes[i]] = roi[i + axes.size()];
    }
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> ResizeOp::getGradOps() { return gradOps<ResizeGradOp>(*this); }

POPART_REGISTER_OP(ResizeOp, onnxOp("Resize", {10, 11, 13, 18, 19}), numericTypes());
POPART_REGISTER_OP(ResizeGradOp, internalOp("ResizeGrad"));
POPART_REGISTER_OP(ResizeOp, onnxOp("Upsample", {7, 9}), numericTypes());
} // namespace popart
