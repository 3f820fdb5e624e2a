// Recomputation: forward activations that are cheap to recompute are not kept
// for the backward pass; copies of their producers run again just before the
// grad ops that need them.
#pragma once
#include "popart/names.hpp"
#include <set>

namespace popart {
class Ir;
/// After autodiff: `forward` holds the ids of the main graph's forward ops.
/// Chooses ops by SessionOptions::autoRecomputation and each op's
/// RecomputeType (Builder.recomputeOutputInBackwardPass), clones them and
/// rewires the grad ops to the clones' outputs.
void recompute(Ir &ir, const std::set<OpId> &forward);
} // namespace popart
