// Kernel of ReplicatedAllReduceFused (ops/collectives_fused.cpp): the inputs
// are all-reduced in one collective (one exchange between processes instead
// of one per weight: Communicator::allReduceParts packs them where the
// exchange reads them and reduces into the outputs). With hostAllReduce the
// packed sums are averaged over the host processes too, then unpacked.
#include "cpu/communicator.hpp"
#include "cpu/devicex.hpp"
#include "replica_weight_grad.hpp"
#include "ops/collectives.hpp"
#include "popart/popx/opx.hpp"
#include <cstring>

namespace popart::cpu {
namespace {

class AllReduceFusedOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    const auto cop = static_cast<popx::CollectiveOp>(collectives::collectiveOperator(op));
    const CommGroup group = collectives::commGroup(op);
    const bool host = collectives::hostAllReduce(op);
    popx::Communicator *comm = &dv_p->communicator();
    const int64_t r = dv_p->localReplica();
    std::vector<std::pair<popx::TensorView, popx::TensorView>> parts;
    int64_t total = 0;
    for (const auto &[i, t] : op.input->tensorMap()) {  // in index order
      parts.emplace_back(getInTensor(i), getOutTensor(i));
      total += parts.back().first.nelms();
    }
    const DataType type = parts.front().first.dtype();
    if (!host) {
      std::vector<popx::Communicator::Part> views;
      std::vector<std::pair<const Op *, OutIndex>> products;  // computed from every replica's inputs instead
      size_t k = 0;
      for (const auto &[i, t] : op.input->tensorMap()) {  // a shared weight's gradient: the replica's slice only
        const auto &[in, out] = parts[k++];
        if (const Op *p = dv_p->productOf(op.outTensor(i))) {
          products.emplace_back(p, i);
          continue;
        }
        if (dv_p->summedGradient(op.outTensor(i))) continue;  // its accumulator (the output) holds the sum
        views.push_back({in.raw(), out.raw(), in.nelms(), dv_p->slicedGradient(op.outTensor(i)),
                         dv_p->peerBuffers(op.inTensor(i))});
      }
      const ReplicaGrouping grouping = comm->grouping(group);
      if (!views.empty())
        prog.add([=] { comm->allReduceParts(r, grouping, cop, views.data(), views.size(), type); });
      for (const auto &[p, i] : products) growReplicaWeightGrad(prog, *this, *p, i, cop == popx::CollectiveOp::Mean);
      return;
    }
    popx::TensorView packed = createTensor(TensorInfo(type, {total}));
    prog.add([=] {
      char *p = static_cast<char *>(packed.raw());
      for (const auto &[in, out] : parts) {
        std::memcpy(p, in.raw(), static_cast<size_t>(in.nbytes()));
        p += in.nbytes();
      }
      comm->allReduce(r, group, cop, packed.raw(), packed.raw(), type, total);
      comm->hostAllReduce(r, packed.raw(), type, total);
      p = static_cast<char *>(packed.raw());
      for (const auto &[in, out] : parts) {
        std::memcpy(out.raw(), p, static_cast<size_t>(out.nbytes()));
        p += out.nbytes();
      }
    });
  }
};

} // namespace
static popx::OpxCreator<AllReduceFusedOpx> POPART_UNIQUE_NAME(allReduceFusedOpxCreator_)(std::vector<OperatorIdentifier>{
    internalOp("ReplicatedAllReduceFused"), internalOp("ReplicatedAllReduceFusedInplace")});
} // namespace popart::cpu
