// The replicated collective ops (ai.graphcore ReplicatedAllReduce(Inplace),
// ReplicatedReduceScatter, ReplicatedAllGather) and their gradient: what the
// kernels read from them.
#pragma once
#include "popart/commgroup.hpp"
#include "popart/op.hpp"
#include "popart/replicagrouping.hpp"

namespace popart::collectives {

/// What a collective op (or the gradient of one) does.
enum class Kind { AllReduce = 0, ReduceScatter, AllGather };

Kind kindOf(const Op &op);
/// PopART's CollectiveOperator value (Add = 0, Mean, Mul, Min, Max, LogicalAnd,
/// LogicalOr, SquareAdd, Local); Add when the attribute is absent.
int64_t collectiveOperator(const Op &op);
/// The replica group (attribute [type, size]); All when absent.
CommGroup commGroup(const Op &op);
/// The op's replica groups for the session's global replication factor: the
/// attribute __collectiveReplicaGrouping = [stride, group size] when present,
/// else its CommGroup; throws naming the op and grouping when they do not fit.
ReplicaGrouping replicaGrouping(const Op &op);
/// The gradient reduction also averages over the host processes (hostAllReduce).
bool hostAllReduce(const Op &op);
/// Replicas in the op's group for the session's global replication factor.
int64_t groupSize(const Op &op);

} // namespace popart::collectives
