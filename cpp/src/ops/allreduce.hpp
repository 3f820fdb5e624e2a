// The AllReduce op across the IPUs of a replica (ai.graphcore AllReduce) and its
// gradient AllReduceGrad: what the kernel reads from them.
#pragma once
#include "popart/op.hpp"

namespace popart::allreduce {

/// PopART's CollectiveOperator values the op supports.
constexpr int64_t kAdd = 0, kMean = 1, kMul = 2, kMin = 3, kMax = 4;

/// The op's reduction (attribute __collectiveOperator; Add when absent).
int64_t reduction(const Op &op);
/// Whether each output is its own input: an AllReduce with identicalInputs, or
/// the gradient of one with identicalGradInputs.
bool passesThrough(const Op &op);

} // namespace popart::allreduce
