// ResizeOp (also Upsample), named by its kernel, which reads the resolved
// per-axis scales, roi and interpolation settings.
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Resize (ai.onnx 10, 11, 13, 18, 19) and Upsample (7, 9). Upsample and
/// Resize-10 are nearest (floor) or linear with asymmetric coordinates.
class ResizeOp final : public Op {
public:
  enum class Mode { Nearest, Linear, Cubic };
  enum class Coord { HalfPixel, HalfPixelSymmetric, PytorchHalfPixel, AlignCorners, Asymmetric, TfCropAndResize,
                     TfHalfPixelForNN };
  enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
  struct Params {
    Mode mode = Mode::Nearest;
    Coord coord = Coord::Asymmetric;
    Rounding rounding = Rounding::Floor;
    double cubicA = -0.75, extrapolation = 0.0;
    bool excludeOutside = false, antialias = false;
    std::vector<double> scales, roiStart, roiEnd;  // per input axis
  };

  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup().
  const Params &params() const { return params_; }

private:
  bool isLegacy() const;  // Upsample, Resize-10: (X, scales)
  void readAttributes();
  std::vector<int64_t> axesAttr() const;
  Shape outputShape();
  Params params_;
};

/// The transpose of the interpolation: dx[i] = sum over (o, k) with i_k(o) = i of
/// w_k(o) dy[o] (extrapolated outputs give nothing). Input: dY; roi, scales and
/// sizes get no gradient.
class ResizeGradOp final : public ShapeGradOp {
public:
  explicit ResizeGradOp(const ResizeOp &fwd) : ShapeGradOp(internalOp("ResizeGrad"), fwd), params_(fwd.params()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const ResizeOp::Params &params() const { return params_; }

private:
  ResizeOp::Params params_;
};

} // namespace popart
