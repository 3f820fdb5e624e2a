// The gradient reduction of a shared weight computed from every replica's
// activations (cpu/shared_update.hpp, SharedUpdates::products), and its
// accumulation into a shared accumulator (SharedUpdates::accumulations).
#pragma once
#include "popart/popx/opx.hpp"

namespace popart::cpu {

/// Grows, for the kernel of reduction `opx` (its output `out`: a reduced weight
/// gradient), the step that writes this replica's slice of it as
///   sum over the replicas p of alpha L_p^T R_p  (times 1/replicas when `mean`)
/// over the gradient's rows that the slice covers, from every replica's L and
/// R, where `product` is the weight-gradient product (popx::SampleProduct) it reduces.
/// `accumulate`: adds that to the output (`opx` is the accumulation `product`
/// itself, its output the accumulator the replicas share), each replica its
/// own rows (no row is added twice).
void growReplicaWeightGrad(popx::Sequence &prog, const popx::Opx &opx, const Op &product, OutIndex out, bool mean,
                           bool accumulate = false);

} // namespace popart::cpu
