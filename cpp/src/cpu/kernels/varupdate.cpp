// OptimizerVarUpdate and GradAccumulate kernels. The var update
// picks its algorithm once at grow() and reads hyper-parameters at run time.
#include "varupdate.hpp"
#include "dispatch.hpp"
#include "cpu/communicator.hpp"
#include "cpu/devicex.hpp"
#include "cpu/shared_update.hpp"
#include "popart/cpu/kernel.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

std::map<std::string, VarUpdateFn> &algorithms() {
  static std::map<std::string, VarUpdateFn> m;
  return m;
}

class VarUpdateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &name = op_p->attr<Attributes::String>("algorithm");
    auto it = algorithms().find(name);
    if (it == algorithms().end()) throw error("no update kernel for optimizer algorithm '{}'", name);
    VarUpdateArgs args{getInTensor(0), getInTensor(1), getInTensor(2).data<float>(), {}, {}};
    for (int i = 3; i < op_p->input->maxIndex(); ++i) args.state.push_back(getInTensor(i));
    for (const auto &[k, v] : op_p->attributes().values())
      if (auto *iv = std::get_if<Attributes::Int>(&v)) args.modes[k] = *iv;
    bool zero = op_p->attr<Attributes::Int>("zeroGradient", 0) != 0;
    VarUpdateFn fn = it->second;
    const int64_t shards = op_p->attr<Attributes::Int>("stateShards", 1);
    if (shards > 1) return growSharded(prog, args, fn, zero, shards);
    if (dv_p->slicedUpdate(op_p)) return growSliced(prog, args, fn, zero);
    prog.add([args, fn, zero] {
      fn(args);
      if (zero) std::memset(args.g.raw(), 0, static_cast<size_t>(args.g.nbytes()));
    });
  }

private:
  // A weight the replicas share (cpu/shared_update.hpp): this replica updates
  // its slice of the weight and of the elementwise state (shaped as the
  // weight, shared too) from its slice of the reduced gradient; scalar state
  // (Adam's step) is the replica's own. The executor's hand-off (and barrier
  // between processes) after the update makes the whole weight visible to
  // every replica.
  void growSliced(popx::Sequence &prog, VarUpdateArgs args, VarUpdateFn fn, bool zero) const {
    const popx::TensorView g = args.g;
    const int64_t n = args.w.nelms(), elem = TensorInfo(args.w.dtype(), {}).nbytes();
    const popx::Communicator &comm = dv_p->communicator();
    const popx::Slice s = popx::replicaSlice(n, elem, comm.globalOffset() + dv_p->localReplica(), comm.globalReplicas());
    auto part = [&](const popx::TensorView &t) {
      const int64_t e = TensorInfo(t.dtype(), {}).nbytes();
      return popx::TensorView(static_cast<char *>(t.raw()) + s.begin * e, TensorInfo(t.dtype(), {s.count}));
    };
    const Shape shape = args.w.info().shape();
    for (auto &st : args.state)
      if (st.nelms() == n && st.info().shape() == shape) st = part(st);
    args.w = part(args.w);
    args.g = part(args.g);
    const bool any = s.count > 0;
    // The replica's own accumulator, or its slice of the one the replicas share.
    const popx::TensorView cleared = dv_p->summedGradient(op_p->inTensor(1)) ? args.g : g;
    prog.add([=] {
      if (any) fn(args);
      if (zero) std::memset(cleared.raw(), 0, static_cast<size_t>(cleared.nbytes()));
    });
  }

  // Replicated tensor sharding of the optimizer state: this replica's state
  // holds elements [k s, k s + s) of the weight (s = ceil(n / shards), k its
  // global replica); it updates that part of the weight, and the replicas
  // all-gather the updated parts into the whole weight.
  void growSharded(popx::Sequence &prog, VarUpdateArgs args, VarUpdateFn fn, bool zero, int64_t shards) const {
    popx::Communicator *comm = &dv_p->communicator();
    const int64_t local = dv_p->localReplica(), k = comm->globalOffset() + local;
    const popx::TensorView w = args.w, g = args.g;
    const int64_t n = w.nelms(), s = (n + shards - 1) / shards, begin = std::min(n, k * s),
                  count = std::min(n, begin + s) - begin, elem = TensorInfo(w.dtype(), {}).nbytes();
    auto part = [&](const popx::TensorView &t, int64_t from) {
      return popx::TensorView(static_cast<char *>(t.raw()) + from * elem, TensorInfo(t.dtype(), {count}));
    };
    args.w = part(w, begin);
    args.g = part(g, begin);
    for (auto &st : args.state)
      if (st.nelms() == s) st = popx::TensorView(st.raw(), TensorInfo(st.dtype(), {count}));
    // The gather sends s elements from every replica: a padded copy of this part, and a padded whole.
    const popx::TensorView mine = createTensor(TensorInfo(w.dtype(), {s}));
    const popx::TensorView all = s * shards == n ? w : createTensor(TensorInfo(w.dtype(), {s * shards}));
    prog.add([=] {
      if (count > 0) fn(args);
      std::memset(mine.raw(), 0, static_cast<size_t>(mine.nbytes()));
      std::memcpy(mine.raw(), args.w.raw(), static_cast<size_t>(count * elem));
      comm->allGather(local, CommGroup(), mine.raw(), all.raw(), mine.nbytes());
      if (all.raw() != w.raw()) std::memcpy(w.raw(), all.raw(), static_cast<size_t>(w.nbytes()));
      if (zero) std::memset(g.raw(), 0, static_cast<size_t>(g.nbytes()));
    });
  }
};

// accum += g; with `runningMeanOver` = N, the k-th micro-batch of each cycle
// of N does accum += (g - accum) / k instead, so accum holds the mean.
class GradAccumulateOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto acc = getOutTensor(0), g = getInTensor(1);
    const int64_t cycle = op_p->attr<Attributes::Int>("runningMeanOver", 0);
    auto calls = std::make_shared<int64_t>(0);
    dispatchFloat(acc.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const double k = cycle > 0 ? static_cast<double>((*calls)++ % cycle + 1) : 0.0;
        T *a = acc.data<T>();
        const T *x = g.data<T>();
        using C = compute_t<T>;
        const C inv = k > 0 ? C(1.0 / k) : C(0);
        popx::Opx::parallelFor(acc.nelms(), [&](int64_t b, int64_t e) {
          if (k > 0)
            for (int64_t i = b; i < e; ++i) a[i] = T(C(a[i]) + (C(x[i]) - C(a[i])) * inv);
          else
            for (int64_t i = b; i < e; ++i) a[i] = T(C(a[i]) + C(x[i]));
        });
      });
    });
  }
};

} // namespace

void registerVarUpdate(const std::string &algorithm, VarUpdateFn fn) { algorithms()[algorithm] = fn; }

static popx::OpxCreator<VarUpdateOpx> varUpdateOpxCreator(internalOp("OptimizerVarUpdate"));
static popx::OpxCreator<GradAccumulateOpx> gradAccumulateOpxCreator(internalOp("GradAccumulate"));
} // namespace popart::cpu
