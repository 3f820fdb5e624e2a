// CompressOp and its gradient, named by their kernel (which reads the layout).
#pragma once
#include "shape_grad.hpp"

namespace popart {

/// The kept indices along the axis, with x seen as [outer, dim, inner].
struct CompressLayout {
  std::vector<int64_t> selected;
  int64_t outer = 1, dim = 1, inner = 1;
};

/// Compress (ai.onnx 9, 11): y = the slices x[..., i, ...] along `axis` with
/// condition[i] true (condition: input 1, a compile-time bool vector, may be
/// shorter than the axis). Without `axis`, x is flattened first.
class CompressOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1}; }
  void setup() override;
  std::vector<std::unique_ptr<Op>> getGradOps() override;
  const CompressLayout &layout() const { return layout_; }  // valid after setup()

private:
  CompressLayout layout_;
};

/// dx = zeros, with dy's slices written back at the selected indices.
class CompressGradOp final : public ShapeGradOp {
public:
  explicit CompressGradOp(const CompressOp &fwd) : ShapeGradOp(internalOp("CompressGrad"), fwd), layout_(fwd.layout()) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const CompressLayout &layout() const { return layout_; }

private:
  CompressLayout layout_;
};

} // namespace popart
