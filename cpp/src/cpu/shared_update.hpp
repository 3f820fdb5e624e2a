// Sharded weight update of replicas that share memory. Replicas hold the same
// weights after every update, so replicas that can see one buffer share it for
// each trained weight and its optimizer state instead of holding one copy each:
// the replica threads of one process, and the processes of a distributed
// session on one host (their shared-memory process group maps the buffers in
// every process). The gradient reduction of such a weight reduces only the
// replica's slice of the gradient, and its OptimizerVarUpdate updates only that
// slice of the shared weight and state. Each element is reduced and updated
// exactly as before (replica order, the same arithmetic), so the results are
// unchanged, while each replica does 1/R of the reduction and the update, and
// no weight is copied between them.
//
// A weight qualifies when every replica updates it the same way: a trained
// weight shared by all replicas (no VariableSettings, no sharded optimizer
// state, no clip norm, no Lamb), whose gradient is all-reduced (Add or Mean)
// over all replicas, without hostAllReduce, by a ReplicatedAllReduce(Inplace)
// or a fused gradient reduction whose output is read only by the var update,
// and whose every other reader runs before that reduction (its exchange is the
// point after which no replica reads the weight until the update is over; the
// executor's hand-off, or a barrier between processes, ends the update for all
// replicas).
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace popart {
class Ir;
class Op;
class Tensor;
} // namespace popart

namespace popart::popx {

struct SharedUpdates {
  std::unordered_set<const Op *> ops;          // reductions and var updates that work on the replica's slice
  std::unordered_set<const Tensor *> grads;    // reduced gradients of which only the replica's slice is made
  std::unordered_set<const Tensor *> tensors;  // weights and optimizer state one buffer holds for all replicas
  // A reduced gradient (of grads) -> the weight-gradient product (a
  // SampleProduct: MatMulRhsGrad, or Gemm's B gradient) whose result only its
  // reduction reads: the replicas exchange the product's operands (batch-sized)
  // instead of their products (weight-sized), and each computes its slice of
  // the reduced gradient as one product over every replica's samples (the
  // slice's rows of alpha [L_0; L_1; ...]^T [R_0; R_1; ...]), while the operands
  // are at most twice the gradient (at most 2 K N / (K + N) rows of samples).
  std::unordered_map<const Tensor *, const Op *> products;
  // With gradient accumulation: a MatMulRhsGradAccumulate whose accumulator
  // (then in tensors, held once) every replica adds to at each micro-batch: the
  // replicas exchange the product's operands and each adds the rows of its
  // slice of the product over all their samples (scaled by 1 / replicas for a
  // Mean reduction: the value). The accumulator then holds the reduced
  // gradient, and its reduction (the reduced gradient is in `summed`) does
  // nothing. Not with pipelining (a replica's stages would exchange at once).
  std::unordered_map<const Op *, bool> accumulations;
  std::unordered_set<const Tensor *> summed;
};

/// A weight's gradient as a product over rows of samples: alpha * left^T right, left [..., K] and
/// right [..., N] with the same leading dims (K x N: the gradient's shape).
struct SampleProduct {
  const Tensor *left, *right;
  float alpha;
};
/// Weight-gradient product p (MatMulRhsGrad or MatMulRhsGradAccumulate: A^T dY; GemmGrad of B with a
/// plain A: alpha A^T dY, or alpha dY^T A when transB) as a SampleProduct; nullopt for other ops.
std::optional<SampleProduct> sampleProduct(const Op &p);

/// The weights `replicas` replicas (all the session's replicas) may share;
/// `minElements`: smaller weights keep a copy per replica.
SharedUpdates planSharedUpdates(Ir &ir, int64_t replicas, int64_t minElements = 4096);

/// The inputs of the plan's fused gradient reductions, for their sliced parts,
/// that may live in memory every replica sees, so that the others read them
/// in place instead of a packed copy: gradient accumulators, and gradients
/// their producer writes into memory of their own (no view of another tensor,
/// no anchor). Sorted by id (the same order in every process).
std::vector<const Tensor *> inPlaceGradients(const SharedUpdates &plan, const Ir &ir);

/// Elements [begin, begin + count) of n: global replica `part` of `parts`'s slice, its
/// bounds on 64-byte lines (no two replicas write one cache line).
struct Slice {
  int64_t begin, count;
};
Slice replicaSlice(int64_t n, int64_t elemBytes, int64_t part, int64_t parts);

} // namespace popart::popx
