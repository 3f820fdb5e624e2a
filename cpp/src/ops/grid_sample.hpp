// GridSampleOp's resolved attributes, read by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// GridSample (ai.onnx 16, 20, 22): see grid_sample.cpp.
class GridSampleOp final : public Op {
public:
  enum class Mode { Nearest, Linear, Cubic };
  enum class Padding { Zeros, Border, Reflection };
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  Mode mode() const { return mode_; }  // valid after setup()
  Padding padding() const { return padding_; }
  bool alignCorners() const { return attr<Attributes::Int>("align_corners", 0) != 0; }

private:
  Mode mode_ = Mode::Linear;
  Padding padding_ = Padding::Zeros;
};

} // namespace popart
