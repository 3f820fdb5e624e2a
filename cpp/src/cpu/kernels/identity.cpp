// Identity and inference Dropout: output 0 aliases input 0, so no step runs
// unless the buffers differ (constant folding); Dropout's mask is all ones.
#include "dispatch.hpp"
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

class IdentityOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), y = getOutTensor(0);
    if (x.raw() != y.raw())
      prog.add([x, y] { std::memcpy(y.raw(), x.raw(), static_cast<size_t>(x.nbytes())); });
    if (op_p->opid.type != "Dropout" || !hasOutput(1)) return;
    auto mask = getOutTensor(1);
    prog.add([mask] {
      dispatchAll(mask.dtype(), [&](auto tag) {
        using T = decltype(tag);
        std::fill_n(static_cast<T *>(mask.raw()), mask.nelms(), T(1.0f));
      });
    });
  }
};

} // namespace
static popx::OpxCreator<IdentityOpx> identityOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("Identity"), onnxOp("Dropout")});
} // namespace popart::cpu
