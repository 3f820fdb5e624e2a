// The gradient reduction of a shared weight computed from every replica's
// activations (cpu/shared_update.hpp, SharedUpdates::products).
#pragma once
#include "popart/popx/opx.hpp"

namespace popart::cpu {

/// Grows, for the kernel of reduction `opx` (its output `out`: a reduced weight
/// gradient), the step that writes this replica's slice of it as
///   sum over the replicas p of alpha L_p^T R_p  (times 1/replicas when `mean`)
/// over the gradient's rows that the slice covers, from every replica's L and
/// R, where `product` is the weight-gradient product (popx::SampleProduct) it reduces.
void growReplicaWeightGrad(popx::Sequence &prog, const popx::Opx &opx, const Op &product, OutIndex out, bool mean);

} // namespace popart::cpu
