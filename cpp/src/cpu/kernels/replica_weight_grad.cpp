// Replicas sharing a weight reduce its gradient (a SampleProduct, alpha L^T R
// over rows of samples: A^T dY for B in Y = A B) without forming each
// replica's whole product: the replicas exchange their L and R
// (Communicator::gather), and replica q computes the rows [ra, rb) of the
// gradient that its slice covers as one product over all their samples,
// alpha [L_0; L_1; ...][:, ra:rb]^T [R_0; R_1; ...]. The multiply-adds of the
// replicas' products, split over the replicas by rows; only batch-sized
// activations pass between the cores (or processes) instead of weight-sized
// gradients, and no reduction pass runs over the gradient.
#include "replica_weight_grad.hpp"
#include "cpu/communicator.hpp"
#include "cpu/devicex.hpp"
#include "cpu/shared_update.hpp"
#include "popart/error.hpp"
#include "popart/tensor.hpp"
#include <cstring>
#include <functional>
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/dnnl_context.hpp"
#endif

namespace popart::cpu {
namespace {

// Where a replica's step finds its L and R at run time (either may be an input
// stream read in place from the step IO).
struct ProductInputs {
  const float *left, *right;
};

struct RowRange {
  int64_t begin, end;
};

// The rows of the gradient [K, N] that this replica's slice of its K N elements covers;
// `disjoint`: a row that two slices share goes to the later one only.
RowRange sliceRows(const popx::Devicex &dv, int64_t K, int64_t N, bool disjoint) {
  const popx::Communicator &comm = dv.communicator();
  const popx::Slice s = popx::replicaSlice(K * N, 4, comm.globalOffset() + dv.localReplica(), comm.globalReplicas());
  if (s.count == 0) return {0, 0};
  const int64_t end = s.begin + s.count;
  return disjoint ? RowRange{s.begin / N, end == K * N ? K : end / N} : RowRange{s.begin / N, (end + N - 1) / N};
}

// Every replica's contribution: its R [M, N], then its L [M, K].
using Contributions = std::vector<const char *>;

// y[i, :] (+)= scale * sum over p, m of L_p[m, i] R_p[m, :] for the rows i of r (without oneDNN;
// `sum` [N]: the row's sum).
void productLoop(const Contributions &all, RowRange r, int64_t M, int64_t K, int64_t N, float scale, bool accumulate,
                 float *sum, float *y) {
  for (int64_t i = r.begin; i < r.end; ++i) {
    for (int64_t j = 0; j < N; ++j) sum[j] = 0.f;
    for (const char *contribution : all) {
      const float *right = reinterpret_cast<const float *>(contribution), *left = right + M * N;
      for (int64_t m = 0; m < M; ++m) {
        const float w = left[m * K + i];
        for (int64_t j = 0; j < N; ++j) sum[j] += w * right[m * N + j];
      }
    }
    float *row = y + i * N;
    for (int64_t j = 0; j < N; ++j) row[j] = (accumulate ? row[j] : 0.f) + sum[j] * scale;
  }
}

#ifdef POPART_WITH_DNNL
// The product over all replicas' samples: their R stacked, and the slice's
// columns of their L stacked, in the op's workspace (R then in the layout the
// product reads fastest); the rows of y written, scaled (alpha, a mean), or
// added to them (`accumulate`).
class GatheredProduct {
public:
  GatheredProduct(popx::Devicex &dv, RowRange r, int64_t replicas, int64_t m, int64_t k, int64_t n, float scale,
                  bool accumulate)
      : first_(r.begin), rows_(r.end - r.begin), M_(m), K_(k), N_(n) {
    using dnnl::memory;
    const int64_t samples = replicas * M_;
    const memory::desc ld({rows_, samples}, memory::data_type::f32, memory::dims{1, rows_});  // stacked L^T
    const memory::desc rd({samples, N_}, memory::data_type::f32, memory::dims{N_, 1});
    const memory::desc yd({rows_, N_}, memory::data_type::f32, memory::dims{N_, 1});
    dnnl::post_ops ops;
    if (scale != 1.0f) ops.append_eltwise(dnnl::algorithm::eltwise_linear, scale, 0.0f);
    if (accumulate) ops.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const memory::desc anyLayout(rd.get_dims(), memory::data_type::f32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl_ctx::engine(), ld, anyLayout, yd, attr);
    mm_ = dnnl::matmul(pd);
    auto space = [&](const memory::desc &md) {
      return dv.workspace(TensorInfo(DataType::INT8, {static_cast<int64_t>(md.get_size())})).raw();
    };
    right_ = memory(rd, dnnl_ctx::engine(), space(rd));
    left_ = memory(ld, dnnl_ctx::engine(), space(ld));
    if (pd.weights_desc() != rd) {
      packed_ = memory(pd.weights_desc(), dnnl_ctx::engine(), space(pd.weights_desc()));
      pack_ = dnnl::reorder(right_, packed_);
    }
    y_ = memory(yd, dnnl_ctx::engine(), DNNL_MEMORY_NONE);
  }

  void run(const Contributions &all, float *out) {
    auto *right = static_cast<float *>(right_.get_data_handle()), *left = static_cast<float *>(left_.get_data_handle());
    for (size_t p = 0; p < all.size(); ++p) {
      const float *rp = reinterpret_cast<const float *>(all[p]), *lp = rp + M_ * N_;
      const int64_t at = static_cast<int64_t>(p) * M_;
      std::memcpy(right + at * N_, rp, static_cast<size_t>(M_ * N_) * sizeof(float));
      for (int64_t m = 0; m < M_; ++m)
        std::memcpy(left + (at + m) * rows_, lp + m * K_ + first_, static_cast<size_t>(rows_) * sizeof(float));
    }
    y_.set_data_handle(out + first_ * N_);
    auto &stream = dnnl_ctx::stream();
    if (packed_) pack_.execute(stream, right_, packed_);
    mm_.execute(stream, {{DNNL_ARG_SRC, left_}, {DNNL_ARG_WEIGHTS, packed_ ? packed_ : right_}, {DNNL_ARG_DST, y_}});
    stream.wait();
  }

private:
  int64_t first_, rows_, M_, K_, N_;
  dnnl::matmul mm_;
  dnnl::reorder pack_;
  dnnl::memory left_, right_, packed_, y_;
};
#endif

} // namespace

void growReplicaWeightGrad(popx::Sequence &prog, const popx::Opx &opx, const Op &product, OutIndex out, bool mean,
                           bool accumulate) {
  popx::Devicex &dv = *opx.dv_p;
  popx::Communicator *comm = &dv.communicator();
  const auto operands = popx::sampleProduct(product);
  if (!operands) throw internal_error("{} is no product over samples", product.debugName());
  const Tensor *leftT = operands->left, *rightT = operands->right;
  // L [..., K] and R [..., N]: M rows of samples.
  const int64_t K = leftT->info.shape().back(), N = rightT->info.shape().back(), M = leftT->info.nelms() / K;
  const int64_t local = dv.localReplica();
  const RowRange rows = sliceRows(dv, K, N, accumulate);
  const float scale = operands->alpha / (mean ? static_cast<float>(comm->globalReplicas()) : 1.0f);
  auto inputs = std::make_shared<ProductInputs>(
      ProductInputs{dv.view(leftT).data<float>(), dv.view(rightT).data<float>()});
  // An input stream is read in place from the step IO when the executor can.
  if (leftT->tensorType() == TensorType::Stream)
    dv.addStreamReader(leftT, [inputs](const void *p) { inputs->left = static_cast<const float *>(p); });
  if (rightT->tensorType() == TensorType::Stream)
    dv.addStreamReader(rightT, [inputs](const void *p) { inputs->right = static_cast<const float *>(p); });
  float *y = opx.getOutTensor(out).data<float>();
  std::function<void(const Contributions &)> compute;
#ifdef POPART_WITH_DNNL
  try {
    if (rows.end > rows.begin) {
      auto gathered = std::make_shared<GatheredProduct>(dv, rows, comm->globalReplicas(), M, K, N, scale, accumulate);
      compute = [=](const Contributions &all) { gathered->run(all, y); };
    }
  } catch (const dnnl::error &) {  // no oneDNN product for these shapes: the loops
  }
#endif
  if (!compute) {
    float *sum = rows.end > rows.begin ? opx.createTensor(TensorInfo(DataType::FLOAT, {N})).data<float>() : nullptr;
    compute = [=](const Contributions &all) { productLoop(all, rows, M, K, N, scale, accumulate, sum, y); };
  }
  const int64_t rightBytes = M * N * 4, leftBytes = M * K * 4;
  prog.add([=] {
    char *mine = comm->contribution(local, rightBytes + leftBytes);  // where the others read it
    std::memcpy(mine, inputs->right, static_cast<size_t>(rightBytes));
    std::memcpy(mine + rightBytes, inputs->left, static_cast<size_t>(leftBytes));
    comm->gather(local, mine, rightBytes + leftBytes, compute);
  });
}

} // namespace popart::cpu
