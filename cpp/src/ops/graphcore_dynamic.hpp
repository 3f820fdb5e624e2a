// The ai.graphcore dynamic region ops and their gradients, named by their kernels.
// Each works on the region of a tensor T that starts at a run-time offset
// (input 1, one entry per axis in `axes`) and spans `sizes` along those axes.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// What a dynamic region kernel does with the region R of T at the offset:
/// Slice: y = R; Update: y = T, R := S; Add: y = T, R += S; Zero: y = T, R := 0;
/// Pad: y = zeros of T's shape, R := S (the gradient of Slice).
enum class DynamicMode { Slice, Update, Add, Zero, Pad };

/// Shared by the forward and grad ops: axes/sizes, checked in setup().
class DynamicBaseOp : public Op {
public:
  DynamicBaseOp(const OperatorIdentifier &id, const Op::Settings &s, DynamicMode mode) : Op(id, s), mode_(mode) {}
  DynamicMode mode() const { return mode_; }
  /// Normalised axes and their sizes; valid after setup().
  const std::vector<int64_t> &axes() const { return axes_; }
  const std::vector<int64_t> &sizes() const { return sizes_; }
  /// The shape of T (the whole tensor) and of the region.
  const Shape &wholeShape() const { return whole_; }
  Shape regionShape() const;

protected:
  /// Reads and checks axes/sizes against T's shape and checks the offset input.
  void setupRegion(const Shape &whole);
  void copyRegion(const DynamicBaseOp &fwd);

private:
  DynamicMode mode_;
  std::vector<int64_t> axes_, sizes_;
  Shape whole_;
};

} // namespace popart
