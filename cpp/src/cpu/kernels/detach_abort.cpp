// Detach: output aliases input, so no step runs unless the buffers differ
// (constant folding). Abort: throws popart::runtime_error when reached, or when
// any element of the condition is non-zero.
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"

namespace popart::cpu {
namespace {

class DetachOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), y = getOutTensor(0);
    if (x.raw() != y.raw()) prog.add([x, y] { copyBytes(y.raw(), x.raw(), x.nbytes()); });
  }
};

class AbortOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    if (!hasInput(0)) {
      prog.add([] { throw runtime_error("Abort op reached (unconditional abort)"); });
      return;
    }
    auto c = getInTensor(0);
    prog.add([c] {
      bool any = dispatchAll(c.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T *p = static_cast<const T *>(c.raw());
        for (int64_t i = 0; i < c.nelms(); ++i)
          if (compute_t<T>(p[i]) != compute_t<T>(0)) return true;
        return false;
      });
      if (any) throw runtime_error("Abort op: condition is true");
    });
  }
};

} // namespace
static popx::OpxCreator<DetachOpx> detachOpxCreator(graphcoreOp("Detach"));
static popx::OpxCreator<AbortOpx> abortOpxCreator(graphcoreOp("Abort"));
} // namespace popart::cpu
