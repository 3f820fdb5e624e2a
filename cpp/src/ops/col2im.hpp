// Col2ImOp's resolved geometry, read by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Per spatial axis: image size, block size, dilation, stride, begin padding, column count.
struct Col2ImAxis {
  int64_t image, block, dilation, stride, padBegin, cols;
};

/// Col2Im (ai.onnx 18): see col2im.cpp.
class Col2ImOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1, 2}; }
  void setup() override;
  const std::vector<Col2ImAxis> &axes() const { return axes_; }  // valid after setup()

private:
  std::vector<Col2ImAxis> axes_;
};

} // namespace popart
