// The `reduction` attribute of PopART's loss ops (Nll, L1, IdentityLoss, Ctc).
// PopART writes it as a STRING ("Sum", "Mean", "NoReduction"); older files
// and this project's earlier ones hold the INT of ReductionType. Both are read.
#pragma once
#include <cstdint>
#include <string>

namespace popart {
class Op;

/// 0 Sum, 1 Mean (the default), 2 NoReduction; throws naming the op on bad values.
int64_t lossReduction(const Op &op);
/// PopART's text of a ReductionType value ("Sum", "Mean", "NoReduction").
std::string lossReductionName(int64_t reduction);
} // namespace popart
