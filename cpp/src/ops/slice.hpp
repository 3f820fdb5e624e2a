// SliceOp and SliceGradOp, named by their kernels (which read the resolved start and step per axis).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// Slice (ai.onnx 1, 10, 11, 13): y[i] = x[start + i * step] on each sliced
/// axis, with numpy clamping of starts/ends; other axes are copied whole.
class SliceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<InIndex> constantInputs() const override { return {1, 2, 3, 4}; }
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  /// Valid after setup(): first input index and step of every input axis.
  const std::vector<int64_t> &begins() const { return begins_; }
  const std::vector<int64_t> &steps() const { return steps_; }
  /// Starts computed at run time (x[i : i + k] with i from the graph, as in a
  /// Loop body): the kernel reads input 1 and slices `dynamicLengths()[j]`
  /// elements (ends - starts, a constant) along axis `dynamicAxes()[j]`.
  bool hasDynamicStarts() const { return !dynamicAxes_.empty(); }
  const std::vector<int64_t> &dynamicAxes() const { return dynamicAxes_; }
  const std::vector<int64_t> &dynamicLengths() const { return dynamicLengths_; }

private:
  struct Request {
    std::vector<int64_t> starts, ends, axes, steps;
  };
  Request request() const;
  void setupDynamic();
  std::vector<int64_t> begins_, steps_;
  std::vector<int64_t> dynamicAxes_, dynamicLengths_;
};

/// dx = zeros of x's shape with dy written where the slice read:
/// dx[b_0 + i_0 * s_0, ...] = dy[i_0, ...].
class SliceGradOp final : public ShapeGradOp {
public:
  explicit SliceGradOp(const SliceOp &fwd)
      : ShapeGradOp(internalOp("SliceGrad"), fwd), begins_(fwd.begins()), steps_(fwd.steps()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  /// The forward slice's first index and step on every axis.
  const std::vector<int64_t> &begins() const { return begins_; }
  const std::vector<int64_t> &steps() const { return steps_; }

private:
  std::vector<int64_t> begins_, steps_;
};

} // namespace popart
