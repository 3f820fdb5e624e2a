// TopK: per lane, the indices 0..n-1 are partially sorted (std::partial_sort, k
// first) by value, ties by lower index; NaN ranks above every number, as in
// numpy/torch. Index scratch is thread-local and reused across runs.
#include "axis_lanes.hpp"
#include "dispatch.hpp"
#include "ops/shape_util.hpp"
#include <algorithm>
#include <vector>

namespace popart::cpu {
namespace {

template <class T>
void topkLane(const T *x, int64_t n, int64_t s, int64_t k, bool largest, T *vals, int64_t *idx, int64_t outStride) {
  using C = compute_t<T>;
  thread_local std::vector<int64_t> order;
  order.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) order[j] = j;
  auto before = [&](int64_t a, int64_t b) {  // a ranks before b
    C va = C(x[a * s]), vb = C(x[b * s]);
    bool na = va != va, nb = vb != vb;
    if (na != nb) return largest ? na : nb;  // NaN ranks above every number
    if (!na && va != vb) return largest ? va > vb : va < vb;
    return a < b;
  };
  std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
  for (int64_t j = 0; j < k; ++j) {
    idx[j * outStride] = order[j];
    vals[j * outStride] = x[order[j] * s];
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
