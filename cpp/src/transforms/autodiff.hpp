// Training transforms: the backward pass and the optimizer's var updates.
#pragma once

namespace popart {
class Ir;
/// Adds grad ops for every op between the trainable weights and the final
/// loss; gradients are named reservedGradientPrefix() + tensor id.
void autodiff(Ir &ir);
/// Adds, per weight with a gradient, the optimizer state, hyper-parameter
/// tensor, gradient accumulation and the fused var-update op.
void addOptimizerOps(Ir &ir);
/// Rewrites the hyper-parameter tensors from the IR's current optimizer.
void refreshOptimizerTensors(Ir &ir);
} // namespace popart
