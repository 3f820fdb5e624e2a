// Kernels of the replicated collectives and their gradient (ops/collectives.cpp):
// calls into the replicas' Communicator. Padding and truncation of
// reduce-scatter shards go through a scratch buffer made at grow time.
#include "cpu/communicator.hpp"
#include "cpu/devicex.hpp"
#include "dispatch.hpp"
#include "replica_weight_grad.hpp"
#include "ops/collectives.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

using collectives::Kind;
using popx::CollectiveOp;

class CollectiveOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    const bool grad = op.opid.type == "ReplicatedCollectiveGrad";
    const Kind kind = collectives::kindOf(op);
    auto cop = static_cast<CollectiveOp>(collectives::collectiveOperator(op));
    const ReplicaGrouping group = collectives::replicaGrouping(op);
    const int64_t G = group.getGroupSize();
    popx::Communicator *comm = &dv_p->communicator();
    const int64_t r = dv_p->localReplica();
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const DataType type = x.dtype();
    const int64_t elem = TensorInfo(type, {}).nbytes();
    if (grad && cop == CollectiveOp::Local) {  // dy passes through (reduce-scatter: into this replica's shard)
      const int64_t nx = x.nelms(), ny = y.nelms();
      prog.add([=] {
        if (kind != Kind::AllGather) {
          std::memcpy(y.raw(), x.raw(), static_cast<size_t>(y.nbytes()));
          return;
        }
        const int64_t index = comm->indexInGroup(group, r);
        std::memset(y.raw(), 0, static_cast<size_t>(y.nbytes()));
        const int64_t begin = std::min(index * nx, ny), end = std::min(begin + nx, ny);
        std::memcpy(static_cast<char *>(y.raw()) + begin * elem, x.raw(), static_cast<size_t>((end - begin) * elem));
      });
      return;
    }
    if (grad && kind == Kind::ReduceScatter) cop = CollectiveOp::Add;  // the gradient of an all-gather
    switch (kind) {
    case Kind::AllReduce:
      if (!grad && dv_p->slicedUpdate(op_p)) {  // a shared weight's gradient: this replica's slice only
        if (const Op *product = dv_p->productOf(op.outTensor(0)))
          return growReplicaWeightGrad(prog, *this, *product, 0, cop == CollectiveOp::Mean);
        if (dv_p->summedGradient(op.outTensor(0))) return;  // its accumulator (the output) holds the sum
        prog.add([=] { comm->allReduceSlice(r, cop, x.raw(), y.raw(), type, x.nelms()); });
        break;
      }
      if (!grad && collectives::hostAllReduce(op)) {
        prog.add([=] {
          comm->allReduce(r, group, cop, x.raw(), y.raw(), type, x.nelms());
          comm->hostAllReduce(r, y.raw(), type, y.nelms());
        });
        break;
      }
      prog.add([=] { comm->allReduce(r, group, cop, x.raw(), y.raw(), type, x.nelms()); });
      break;
    case Kind::ReduceScatter: {  // x padded to G shards of y
      const int64_t shard = y.nelms();
      if (G * shard == x.nelms()) {
        prog.add([=] { comm->reduceScatter(r, group, cop, x.raw(), y.raw(), type, shard); });
        break;
      }
      popx::TensorView padded = createTensor(TensorInfo(type, {G * shard}));
      prog.add([=] {
        std::memcpy(padded.raw(), x.raw(), static_cast<size_t>(x.nbytes()));
        std::memset(static_cast<char *>(padded.raw()) + x.nbytes(), 0,
                    static_cast<size_t>(padded.nbytes() - x.nbytes()));
        comm->reduceScatter(r, group, cop, padded.raw(), y.raw(), type, shard);
      });
      break;
    }
    case Kind::AllGather: {
      if (!grad) {
        prog.add([=] { comm->allGather(r, group, x.raw(), y.raw(), x.nbytes()); });
        break;
      }
      // Gradient of a reduce-scatter: gather the shards' gradients, keep x's elements.
      popx::TensorView full = createTensor(TensorInfo(type, {G * x.nelms()}));
      const bool mean = cop == CollectiveOp::Mean;
      prog.add([=] {
        comm->allGather(r, group, x.raw(), full.raw(), x.nbytes());
        std::memcpy(y.raw(), full.raw(), static_cast<size_t>(y.nbytes()));
        if (mean) scale(y, 1.0 / static_cast<double>(G));
      });
      break;
    }
    }
  }

private:
  static void scale(const popx::TensorView &t, double s) {
    dispatchNumeric(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T *p = static_cast<T *>(t.raw());
      using C = compute_t<T>;
      for (int64_t i = 0; i < t.nelms(); ++i) p[i] = T(static_cast<C>(static_cast<C>(p[i]) * s));
    });
  }
};

} // namespace
static popx::OpxCreator<CollectiveOpx> POPART_UNIQUE_NAME(collectiveOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("ReplicatedAllReduce"), graphcoreOp("ReplicatedAllReduceInplace"),
    graphcoreOp("ReplicatedReduceScatter"), graphcoreOp("ReplicatedAllGather"),
    internalOp("ReplicatedCollectiveGrad")});
} // namespace popart::cpu
