// Unique kernel: groups the slices of x (values as double) like the op did at
// compile time, then copies the first slice of each group into Y and writes
// indices, inverse_indices and counts. The scratch copy of x is made in grow.
#include "dispatch.hpp"
#include "ops/unique.hpp"
#include "popart/popx/opx.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

class UniqueOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<UniqueOp>();
    const int64_t outer = op.outer(), dim = op.dim(), inner = op.inner();
    const bool sorted = op.attr<Attributes::Int>("sorted", 1) != 0;
    auto x = getInTensor(0), y = getOutTensor(0);
    popx::TensorView none, outs[3];
    for (int k = 0; k < 3; ++k) outs[k] = hasOutput(k + 1) ? getOutTensor(k + 1) : none;
    auto values = std::make_shared<std::vector<double>>(static_cast<size_t>(x.nelms()));
    prog.add([=] {
      dispatchAll(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T *px = x.data<T>();
        for (int64_t i = 0; i < x.nelms(); ++i) (*values)[i] = double(compute_t<T>(px[i]));
      });
      const UniqueGroups g = uniqueGroups(*values, outer, dim, inner, sorted);
      const int64_t groups = static_cast<int64_t>(g.first.size()), bytes = dataTypeSize(x.dtype());
      auto *py = static_cast<char *>(y.raw());
      const auto *src = static_cast<const char *>(x.raw());
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < groups; ++j)
          std::memcpy(py + (o * groups + j) * inner * bytes, src + (o * dim + g.first[j]) * inner * bytes,
                      static_cast<size_t>(inner * bytes));
      const std::vector<int64_t> *lists[3] = {&g.first, &g.inverse, &g.counts};
      for (int k = 0; k < 3; ++k)
        if (outs[k].raw()) std::memcpy(outs[k].raw(), lists[k]->data(), lists[k]->size() * sizeof(int64_t));
    });
  }
};

} // namespace
static popx::OpxCreator<UniqueOpx> uniqueOpxCreator(onnxOp("Unique"));
} // namespace popart::cpu
