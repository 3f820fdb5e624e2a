// RoiAlignOp's resolved attributes, read by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// RoiAlign (ai.onnx 10, 16, 22): see roi_align.cpp.
class RoiAlignOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool isMax() const { return max_; }  // valid after setup()
  bool halfPixel() const { return halfPixel_; }

private:
  bool max_ = false, halfPixel_ = true;
};

} // namespace popart
