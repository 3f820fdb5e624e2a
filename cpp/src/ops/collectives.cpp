// Replicated collectives (ai.graphcore, opset 1), over the replicas of the
// op's replica grouping (attribute __collectiveReplicaGrouping = [stride, group
// size]: groups of replicas start + k * stride, as ReplicaGrouping defines them;
// __collectiveReplicaGroupingReplicas, when present, the replicas it was made for)
// or else its CommGroup (attribute __collectiveCommGroup = [type, size], default All)
// with the CollectiveOperator __collectiveOperator (default Add):
//   ReplicatedAllReduce(x) -> y, y = op over the group of x (same shape);
//     ReplicatedAllReduceInplace writes y into x.
//   ReplicatedReduceScatter(x) -> y [ceil(n / G)]: x flattened and zero-padded
//     to G shards; replica k of the group gets op over the group of shard k.
//   ReplicatedAllGather(x) -> y [G * n]: the group's x flattened, in group order.
// Gradients (ReplicatedCollectiveGrad, attribute `kind`): all-reduce Add/Mean
// -> all-reduce Add/Mean of dy; reduce-scatter -> all-gather of dy (Mean: / G),
// truncated to x; all-gather -> reduce-scatter Add of dy; Local -> dy itself
// (reduce-scatter: dy in this replica's shard, zeros elsewhere). Mul, Min,
// Max, logical and SquareAdd collectives have no gradient.
#include "collectives.hpp"
#include "popart/error.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/replicagrouping.hpp"
#include "popart/sessionoptions.hpp"
#include "shape_grad.hpp"

namespace popart {
namespace collectives {

Kind kindOf(const Op &op) {
  if (op.opid.type == "ReplicatedCollectiveGrad") return static_cast<Kind>(op.attr<Attributes::Int>("kind"));
  if (op.opid.type == "ReplicatedReduceScatter") return Kind::ReduceScatter;
  if (op.opid.type == "ReplicatedAllGather") return Kind::AllGather;
  return Kind::AllReduce;
}

int64_t collectiveOperator(const Op &op) { return op.attr<Attributes::Int>("__collectiveOperator", 0); }

CommGroup commGroup(const Op &op) {
  const auto g = op.attr<Attributes::Ints>("__collectiveCommGroup", {});
  if (g.empty()) return {};
  if (g.size() != 2 || g[0] < 0 || g[0] >= static_cast<int64_t>(CommGroupType::N) || g[1] < 0)
    throw error("{}: attribute __collectiveCommGroup must be [type (0..3), group size], got {} values",
                op.debugName(), g.size());
  return CommGroup(static_cast<CommGroupType>(g[0]), static_cast<unsigned>(g[1]));
}

bool hostAllReduce(const Op &op) { return op.attr<Attributes::Int>("hostAllReduce", 0) != 0; }

ReplicaGrouping replicaGrouping(const Op &op) {
  const int64_t replicas = op.getIr().getSessionOptions().getGlobalReplicationFactor();
  const auto rg = op.attr<Attributes::Ints>("__collectiveReplicaGrouping", {});
  if (rg.empty()) {
    try {
      return toReplicaGrouping(commGroup(op), static_cast<unsigned>(replicas));
    } catch (const error &e) {
      throw error("{}: its CommGroup does not fit {} replicas: {}", op.debugName(), replicas, e.what());
    }
  }
  if (rg.size() != 2 || rg[0] < 1 || rg[1] < 1)
    throw error("{}: attribute __collectiveReplicaGrouping must be [stride, group size], both positive", op.debugName());
  const int64_t over = op.attr<Attributes::Int>("__collectiveReplicaGroupingReplicas", replicas);
  if (over != replicas)
    throw error("{}: its replica grouping (stride {}, group size {}) is over {} replicas, but the session runs {} "
                "(global) replicas",
                op.debugName(), rg[0], rg[1], over, replicas);
  if (replicas % (rg[0] * rg[1]) != 0)
    throw error("{}: replica grouping (stride {}, group size {}) does not divide the replication factor {}",
                op.debugName(), rg[0], rg[1], replicas);
  // a group of one replica is the same whatever its stride
  return ReplicaGrouping(static_cast<unsigned>(replicas), rg[1] == 1 ? 1u : static_cast<unsigned>(rg[0]),
                         static_cast<unsigned>(rg[1]));
}

int64_t groupSize(const Op &op) { return replicaGrouping(op).getGroupSize(); }

} // namespace collectives

namespace {

using collectives::Kind;
constexpr int64_t kAdd = 0, kMean = 1, kLocal = 8;

class ReplicatedCollectiveGradOp final : public ShapeGradOp {
public:
  ReplicatedCollectiveGradOp(const Op &fwd, Kind kind) : ShapeGradOp(internalOp("ReplicatedCollectiveGrad"), fwd) {
    attributes() = fwd.attributes();
    attributes().setAttribute("kind", Attributes::Int(static_cast<int64_t>(kind)));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool hasSideEffect() const override { return true; }  // every replica must take part
};

class ReplicatedCollectiveOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t op = collectives::collectiveOperator(*this);
    if (op < 0 || op > kLocal) throw error("{}: collective operator {} is not one of Add .. Local (0 .. 8)", debugName(), op);
    const int64_t G = collectives::groupSize(*this);
    const int64_t n = inInfo(0).nelms();
    switch (collectives::kindOf(*this)) {
    case Kind::AllReduce: outInfo(0) = inInfo(0); break;
    case Kind::ReduceScatter: outInfo(0) = TensorInfo(inInfo(0).dataType(), {(n + G - 1) / G}); break;
    case Kind::AllGather: outInfo(0) = TensorInfo(inInfo(0).dataType(), {G * n}); break;
    }
  }
  bool aliases(InIndex in, OutIndex out) const override { return inplace() && in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return inplace() && in == 0; }
  bool hasSideEffect() const override { return true; }  // every replica must take part
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    const int64_t op = collectives::collectiveOperator(*this);
    const Kind kind = collectives::kindOf(*this);
    if (op != kAdd && op != kMean && op != kLocal)
      throw error("{}: a collective with operator {} has no gradient (only Add, Mean and Local have)", debugName(),
                  op);
    std::vector<std::unique_ptr<Op>> v;
    v.push_back(std::make_unique<ReplicatedCollectiveGradOp>(
        *this, kind == Kind::AllReduce ? Kind::AllReduce : kind == Kind::ReduceScatter ? Kind::AllGather
                                                                                       : Kind::ReduceScatter));
    return v;
  }

private:
  bool inplace() const { return opid.type == "ReplicatedAllReduceInplace"; }
};

} // namespace
POPART_REGISTER_OP(ReplicatedCollectiveOp, graphcoreOp("ReplicatedAllReduce"), numericTypes());
POPART_REGISTER_OP(ReplicatedCollectiveOp, graphcoreOp("ReplicatedAllReduceInplace"), numericTypes());
POPART_REGISTER_OP(ReplicatedCollectiveOp, graphcoreOp("ReplicatedReduceScatter"), numericTypes());
POPART_REGISTER_OP(ReplicatedCollectiveOp, graphcoreOp("ReplicatedAllGather"), numericTypes());
POPART_REGISTER_OP(ReplicatedCollectiveGradOp, internalOp("ReplicatedCollectiveGrad"));
} // namespace popart
