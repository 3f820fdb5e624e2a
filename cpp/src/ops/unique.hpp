// The grouping of Unique, computed by the op (for the output shapes) and again by its kernel.
#pragma once
#include "popart/op.hpp"
#include <vector>

namespace popart {

/// x seen as [outer, dim, inner]: slice k is x[:, k, :]. `first[j]` is the
/// first slice of group j (groups sorted by slice value, or in order of first
/// occurrence), `inverse[k]` the group of slice k, `counts[j]` its size.
struct UniqueGroups {
  std::vector<int64_t> first, inverse, counts;
};
UniqueGroups uniqueGroups(const std::vector<double> &x, int64_t outer, int64_t dim, int64_t inner, bool sorted);

/// Unique (ai.onnx 11): see unique.cpp.
class UniqueOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {0}; }
  void setup() override;
  /// x as [outer, dim, inner] around the axis (flattened: [1, n, 1]); valid after setup().
  int64_t outer() const { return outer_; }
  int64_t dim() const { return dim_; }
  int64_t inner() const { return inner_; }

private:
  int64_t outer_ = 1, dim_ = 1, inner_ = 1;
};

} // namespace popart
