// Replicas sharing a weight reduce its gradient dB = A^T dY without forming
// each replica's whole product: the replicas exchange their A and dY
// (Communicator::gather), and replica q computes the rows [ra, rb) of B that
// its slice of the reduced gradient covers as one product over all their
// samples, [A_0; A_1; ...][:, ra:rb]^T [dY_0; dY_1; ...]. The multiply-adds of
// the replicas' products, split over the replicas by rows; only batch-sized
// activations pass between the cores (or processes) instead of weight-sized
// gradients, and no reduction pass runs over the gradient.
#include "replica_weight_grad.hpp"
#include "cpu/communicator.hpp"
#include "cpu/devicex.hpp"
#include "cpu/shared_update.hpp"
#include "popart/tensor.hpp"
#include <cstring>
#include <functional>
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/dnnl_context.hpp"
#endif

namespace popart::cpu {
namespace {

// Where a replica's step finds its dY and A at run time (A may be an input
// stream read in place from the step IO).
struct ProductInputs {
  const float *dy, *a;
};

struct RowRange {
  int64_t begin, end;
};

// The rows of B [K, N] that this replica's slice of the K N elements covers.
RowRange sliceRows(const popx::Devicex &dv, int64_t K, int64_t N) {
  const popx::Communicator &comm = dv.communicator();
  const popx::Slice s = popx::replicaSlice(K * N, 4, comm.globalOffset() + dv.localReplica(), comm.globalReplicas());
  if (s.count == 0) return {0, 0};
  return {s.begin / N, (s.begin + s.count + N - 1) / N};
}

// Every replica's contribution: its dY [M, N], then its A [M, K].
using Contributions = std::vector<const char *>;

// y[i, :] = scale * sum over p, m of A_p[m, i] dY_p[m, :] for the rows i of r (without oneDNN).
void productLoop(const Contributions &all, RowRange r, int64_t M, int64_t K, int64_t N, float scale, float *y) {
  for (int64_t i = r.begin; i < r.end; ++i) {
    float *row = y + i * N;
    for (int64_t j = 0; j < N; ++j) row[j] = 0.f;
    for (const char *contribution : all) {
      const float *dy = reinterpret_cast<const float *>(contribution), *a = dy + M * N;
      for (int64_t m = 0; m < M; ++m) {
        const float w = a[m * K + i];
        for (int64_t j = 0; j < N; ++j) row[j] += w * dy[m * N + j];
      }
    }
    for (int64_t j = 0; j < N; ++j) row[j] *= scale;
  }
}

#ifdef POPART_WITH_DNNL
// The product over all replicas' samples: their dY stacked, and the slice's
// columns of their A stacked, in the op's workspace (dY then in the layout the
// product reads fastest); the rows of y written, scaled for a mean.
class GatheredProduct {
public:
  GatheredProduct(popx::Devicex &dv, RowRange r, int64_t replicas, int64_t m, int64_t k, int64_t n, float scale)
      : first_(r.begin), rows_(r.end - r.begin), M_(m), K_(k), N_(n) {
    using dnnl::memory;
    const int64_t samples = replicas * M_;
    const memory::desc ad({rows_, samples}, memory::data_type::f32, memory::dims{1, rows_});  // stacked A^T
    const memory::desc dyd({samples, N_}, memory::data_type::f32, memory::dims{N_, 1});
    const memory::desc yd({rows_, N_}, memory::data_type::f32, memory::dims{N_, 1});
    dnnl::post_ops ops;
    if (scale != 1.0f) ops.append_eltwise(dnnl::algorithm::eltwise_linear, scale, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const memory::desc anyLayout(dyd.get_dims(), memory::data_type::f32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl_ctx::engine(), ad, anyLayout, yd, attr);
    mm_ = dnnl::matmul(pd);
    auto space = [&](const memory::desc &md) {
      return dv.workspace(TensorInfo(DataType::INT8, {static_cast<int64_t>(md.get_size())})).raw();
    };
    dy_ = memory(dyd, dnnl_ctx::engine(), space(dyd));
    a_ = memory(ad, dnnl_ctx::engine(), space(ad));
    if (pd.weights_desc() != dyd) {
      packed_ = memory(pd.weights_desc(), dnnl_ctx::engine(), space(pd.weights_desc()));
      pack_ = dnnl::reorder(dy_, packed_);
    }
    y_ = memory(yd, dnnl_ctx::engine(), DNNL_MEMORY_NONE);
  }

  void run(const Contributions &all, float *out) {
    auto *dy = static_cast<float *>(dy_.get_data_handle()), *a = static_cast<float *>(a_.get_data_handle());
    for (size_t p = 0; p < all.size(); ++p) {
      const float *dyp = reinterpret_cast<const float *>(all[p]), *ap = dyp + M_ * N_;
      const int64_t at = static_cast<int64_t>(p) * M_;
      std::memcpy(dy + at * N_, dyp, static_cast<size_t>(M_ * N_) * sizeof(float));
      for (int64_t m = 0; m < M_; ++m)
        std::memcpy(a + (at + m) * rows_, ap + m * K_ + first_, static_cast<size_t>(rows_) * sizeof(float));
    }
    y_.set_data_handle(out + first_ * N_);
    auto &stream = dnnl_ctx::stream();
    if (packed_) pack_.execute(stream, dy_, packed_);
    mm_.execute(stream, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, packed_ ? packed_ : dy_}, {DNNL_ARG_DST, y_}});
    stream.wait();
  }

private:
  int64_t first_, rows_, M_, K_, N_;
  dnnl::matmul mm_;
  dnnl::reorder pack_;
  dnnl::memory a_, dy_, packed_, y_;
};
#endif

} // namespace

void growReplicaWeightGrad(popx::Sequence &prog, const popx::Opx &opx, const Op &product, OutIndex out, bool mean) {
  popx::Devicex &dv = *opx.dv_p;
  popx::Communicator *comm = &dv.communicator();
  const Tensor *dyT = product.inTensor(0), *aT = product.inTensor(1);
  const int64_t M = aT->info.dim(0), K = aT->info.dim(1), N = dyT->info.dim(1), local = dv.localReplica();
  const RowRange rows = sliceRows(dv, K, N);
  const float scale = mean ? 1.0f / static_cast<float>(comm->globalReplicas()) : 1.0f;
  auto inputs = std::make_shared<ProductInputs>(ProductInputs{dv.view(dyT).data<float>(), dv.view(aT).data<float>()});
  if (aT->tensorType() == TensorType::Stream)  // read in place from the step IO when the executor can
    dv.addStreamReader(aT, [inputs](const void *p) { inputs->a = static_cast<const float *>(p); });
  float *y = opx.getOutTensor(out).data<float>();
  std::function<void(const Contributions &)> compute = [=](const Contributions &all) {
    productLoop(all, rows, M, K, N, scale, y);
  };
#ifdef POPART_WITH_DNNL
  try {
    if (rows.end > rows.begin) {
      auto gathered = std::make_shared<GatheredProduct>(dv, rows, comm->globalReplicas(), M, K, N, scale);
      compute = [=](const Contributions &all) { gathered->run(all, y); };
    }
  } catch (const dnnl::error &) {  // no oneDNN product for these shapes: the loops
  }
#endif
  const int64_t dyBytes = M * N * 4, aBytes = M * K * 4;
  prog.add([=] {
    char *mine = comm->contribution(local, dyBytes + aBytes);  // where the others read it
    std::memcpy(mine, inputs->dy, static_cast<size_t>(dyBytes));
    std::memcpy(mine + dyBytes, inputs->a, static_cast<size_t>(aBytes));
    comm->gather(local, mine, dyBytes + aBytes, compute);
  });
}

} // namespace popart::cpu
