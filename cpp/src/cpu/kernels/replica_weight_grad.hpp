// The gradient reduction of a shared weight computed from every replica's
// activations (cpu/shared_update.hpp, SharedUpdates::products).
#pragma once
#include "popart/popx/opx.hpp"

namespace popart::cpu {

/// Grows, for the kernel of reduction `opx` (its output `out`: the reduced
/// gradient of B in Y = A B), the step that writes this replica's slice of it as
///   sum over the replicas p of A_p^T dY_p  (times 1/replicas when `mean`)
/// over the rows of B that the slice covers, from every replica's A and dY,
/// where `product` is the MatMulRhsGrad (dY, A -> A^T dY) it reduces.
void growReplicaWeightGrad(popx::Sequence &prog, const popx::Opx &opx, const Op &product, OutIndex out, bool mean);

} // namespace popart::cpu
