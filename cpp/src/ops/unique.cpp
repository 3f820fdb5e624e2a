// Unique (ai.onnx 11): the distinct values of x (or, with `axis`, the distinct
// slices along it), sorted ascending (sorted = 1, lexicographic for slices) or
// in order of first occurrence. Outputs: Y, indices (first occurrence of each
// in x), inverse_indices (for each element / slice of x, its position in Y),
// counts. The output size depends on the values, so x must be a compile-time
// constant. No gradient.
#include "ops/unique.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <algorithm>
#include <numeric>

namespace popart {

UniqueGroups uniqueGroups(const std::vector<double> &x, int64_t outer, int64_t dim, int64_t inner, bool sorted) {
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const double va = x[(o * dim + a) * inner + i], vb = x[(o * dim + b) * inner + i];
        if (va != vb) return va < vb;
      }
    return false;
  };
  std::vector<int64_t> order(static_cast<size_t>(dim));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  UniqueGroups g;
  g.inverse.assign(order.size(), 0);
  for (size_t p = 0; p < order.size(); ++p) {
    if (p == 0 || less(order[p - 1], order[p])) {
      g.first.push_back(order[p]);
      g.counts.push_back(0);
    }
    g.inverse[order[p]] = static_cast<int64_t>(g.first.size()) - 1;
    ++g.counts.back();
  }
  if (!sorted) {  // renumber the groups by first occurrence
    std::vector<int64_t> byFirst(g.first.size()), rank(g.first.size());
    std::iota(byFirst.begin(), byFirst.end(), 0);
    std::sort(byFirst.begin(), byFirst.end(), [&](int64_t a, int64_t b) { return g.first[a] < g.first[b]; });
    UniqueGroups u;
    for (size_t r = 0; r < byFirst.size(); ++r) {
      rank[byFirst[r]] = static_cast<int64_t>(r);
      u.first.push_back(g.first[byFirst[r]]);
      u.counts.push_back(g.counts[byFirst[r]]);
    }
    for (int64_t &v : g.inverse) v = rank[v];
    u.inverse = std::move(g.inverse);
    return u;
  }
  return g;
}

void UniqueOp::setup() {
  const Shape &s = inShape(0);
  const int64_t r = inRank(0);
  Shape y{0};
  int64_t axis = 0;
  if (attributes().hasAttribute("axis")) {
    const int64_t a = attr<Attributes::Int>("axis");
    axis = a < 0 ? a + r : a;
    if (axis < 0 || axis >= r) throw error("attribute axis {} is out of range for rank {}", a, r);
    outer_ = inner_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= s[d];
    for (int64_t d = axis + 1; d < r; ++d) inner_ *= s[d];
    dim_ = s[axis];
    y = s;
  } else {
    dim_ = inInfo(0).nelms();
  }
  const auto g = uniqueGroups(inConstFloats(0), outer_, dim_, inner_, attr<Attributes::Int>("sorted", 1) != 0);
  const int64_t groups = static_cast<int64_t>(g.first.size());
  y[axis] = groups;
  outInfo(0) = TensorInfo(inInfo(0).dataType(), y);
  if (hasOutput(1)) outInfo(1) = TensorInfo(DataType::INT64, Shape{groups});
  if (hasOutput(2)) outInfo(2) = TensorInfo(DataType::INT64, Shape{dim_});
  if (hasOutput(3)) outInfo(3) = TensorInfo(DataType::INT64, Shape{groups});
}

POPART_REGISTER_OP(UniqueOp, onnxOp("Unique", {11}), allTypes());
} // namespace popart
