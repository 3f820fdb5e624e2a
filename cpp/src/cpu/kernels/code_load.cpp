// RemoteCodeLoad: nothing to run on the CPU (code is always resident); see ops/code_load.cpp.
#include "popart/popx/opx.hpp"

namespace popart::cpu {
namespace {

class RemoteCodeLoadOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &) const override {}
};

} // namespace
static popx::OpxCreator<RemoteCodeLoadOpx> remoteCodeLoadOpxCreator(graphcoreOp("RemoteCodeLoad"));
} // namespace popart::cpu
