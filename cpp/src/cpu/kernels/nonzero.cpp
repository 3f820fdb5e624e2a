// NonZero: one sequential scan with an odometer over the input index; the j-th
// non-zero element writes its index into column j of the [rank, count] output.
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include <vector>

namespace popart::cpu {
namespace {

template <class T> void runNonZero(const T *x, const Shape &shape, int64_t count, int64_t *y) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  int64_t j = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (compute_t<T>(x[i]) != compute_t<T>(0)) {
      if (j == count) throw error("input has more than the {} non-zero values seen at setup", count);
      for (int64_t d = 0; d < rank; ++d) y[d * count + j] = idx[d];
      ++j;
    }
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
  }
  if (j != count) throw error("input has {} non-zero values, {} at setup", j, count);
}

class NonZeroOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0);
    int64_t *y = getOutTensor(0).data<int64_t>();
    const Shape shape = inShape(0);
    const int64_t count = outShape(0)[1];
    dispatchAll(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *px = x.data<T>();
      prog.add([=] { runNonZero(px, shape, count, y); });
    });
  }
};

} // namespace
static popx::OpxCreator<NonZeroOpx> nonZeroOpxCreator(onnxOp("NonZero"));
} // namespace popart::cpu
