// SliceOp, named by its kernel (which reads the resolved start and step per axis).
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Slice (ai.onnx 1, 10, 11, 13): y[i] = x[start + i * step] on each sliced
/// axis, with numpy clamping of starts/ends; other axes are copied whole.
class SliceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override { return {1, 2, 3, 4}; }
  /// Valid after setup(): first input index and step of every input axis.
  const std::vector<int64_t> &begins() const { return begins_; }
  const std::vector<int64_t> &steps() const { return steps_; }

private:
  struct Request {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  Request request() const;
  std::vector<int64_t> begins_, steps_;
};

} // namespace popart
