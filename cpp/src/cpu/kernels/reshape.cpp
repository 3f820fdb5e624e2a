// View ops (Reshape, Flatten, Squeeze, Unsqueeze, and ReshapeGrad, the gradient
// of all four): y = x with a new shape.
// The planner aliases y to x, so this is a no-op; it copies only when the
// buffers differ (constant folding, graph outputs kept apart).
#include "popart/cpu/kernel.hpp"
#include "strided_copy.hpp"

namespace popart::cpu {
namespace {

void viewFwd(KernelContext &ctx) {
  copyBytes(ctx.outView(0).raw(), ctx.inView(0).raw(), ctx.outView(0).nbytes());
}

} // namespace
POPART_REGISTER_KERNEL(onnxOp("Reshape"), viewFwd);
POPART_REGISTER_KERNEL(onnxOp("Flatten"), viewFwd);
POPART_REGISTER_KERNEL(onnxOp("Squeeze"), viewFwd);
POPART_REGISTER_KERNEL(onnxOp("Unsqueeze"), viewFwd);
POPART_REGISTER_KERNEL(internalOp("ReshapeGrad"), viewFwd);
} // namespace popart::cpu
