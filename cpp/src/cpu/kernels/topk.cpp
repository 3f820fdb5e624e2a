// TopK: per lane, (value, index) pairs are gathered and partially sorted
// (std::partial_sort, k first) by value, ties by lower index; NaN ranks above every
// number, as in numpy/torch. The scratch is thread-local and reused across runs.
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include <algorithm>
#include <utility>
#include <vector>

namespace popart::cpu {
namespace {

template <class T>
void topkLane(const T *x, int64_t n, int64_t s, int64_t k, bool largest, T *vals, int64_t *idx, int64_t outStride) {
  using C = compute_t<T>;
  using Item = std::pair<C, int64_t>;
  thread_local std::vector<Item> items;  // the lane, gathered once: contiguous during the sort
  items.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) items[j] = {C(x[j * s]), j};
  auto before = [largest](const Item &a, const Item &b) {  // a ranks before b
    const bool na = a.first != a.first, nb = b.first != b.first;
    if (na != nb) return largest ? na : nb;  // NaN ranks above every number
    if (!na && a.first != b.first) return largest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  };
  std::partial_sort(items.begin(), items.begin() + k, items.end(), before);
  for (int64_t j = 0; j < k; ++j) {
    idx[j * outStride] = items[j].second;
    vals[j * outStride] = x[items[j].second * s];
  }
}

class TopKOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const int64_t axis = shapeutil::normaliseAxis(op_p->attr<Attributes::Int>("axis", -1), op_p->inRank(0));
    const AxisLanes in = axisLanes(inShape(0), axis), out = axisLanes(outShape(0), axis);
    const int64_t k = out.n;
    const bool largest = op_p->attr<Attributes::Int>("largest", 1) != 0;
    auto x = getInTensor(0), v = getOutTensor(0);
    int64_t *pi = getOutTensor(1).data<int64_t>();
    if (k == 0 || in.lanes() == 0) return;
    dispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      T *pv = v.data<T>();
      prog.add([=] {
        forEachLane(in, [&](int64_t lane, int64_t b) {
          int64_t ob = out.base(lane);
          topkLane(px + b, in.n, in.inner, k, largest, pv + ob, pi + ob, out.inner);
        });
      });
    });
  }
};

} // namespace
static popx::OpxCreator<TopKOpx> topkOpxCreator(onnxOp("TopK"));
} // namespace popart::cpu
