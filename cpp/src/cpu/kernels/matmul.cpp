// MatMul and Gemm: oneDNN matmul for FLOAT/FLOAT16 (FLOAT16 staged in float; Gemm's alpha, beta and C
// as post-ops alpha/beta * AB, + C, * beta), plain loops for DOUBLE and integers:
// Y[b, i, j] = alpha * sum_k A[b, i, k] * B[b, k, j] + beta * C[i, j].
#include "dispatch.hpp"
#include "ops/matmul_shape.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <string>
#include <tuple>
#ifdef POPART_WITH_DNNL
#include "cpu/dnnl/primitive_step.hpp"
#endif

namespace popart::cpu {
namespace {

/// A batch of Y[i, j] = alpha * sum_k A[i, k] * B[k, j] + beta * C[i, j] over strided operands.
struct GemmLoop {
  int64_t m = 1, n = 1, k = 1;
  std::vector<int64_t> aOffset{0}, bOffset{0};  // per batch element
  int64_t sam = 0, sak = 1, sbk = 0, sbn = 1;   // element strides of A[i, k] and B[k, j]
  double alpha = 1.0, beta = 0.0;
  int64_t scm = 0, scn = 0;  // strides of C (0 along broadcast dimensions)

  template <class T> void run(const T *a, const T *b, const T *c, T *y) const {
    using Acc = compute_t<T>;
    int64_t rows = static_cast<int64_t>(aOffset.size()) * m;
    popx::Opx::parallelFor(rows, [&](int64_t r0, int64_t r1) {
      std::vector<Acc> acc(static_cast<size_t>(n));
      for (int64_t r = r0; r < r1; ++r) {
        int64_t bi = r / m, i = r % m;
        const T *ab = a + aOffset[bi] + i * sam, *bb = b + bOffset[bi];
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t kk = 0; kk < k; ++kk) {
          Acc av = ab[kk * sak];
          const T *brow = bb + kk * sbk;
          for (int64_t j = 0; j < n; ++j) acc[j] += av * Acc(brow[j * sbn]);
        }
        T *yr = y + r * n;
        for (int64_t j = 0; j < n; ++j) {
          Acc v = alpha == 1.0 ? acc[j] : static_cast<Acc>(alpha * acc[j]);
          if (c && beta != 0.0) v += static_cast<Acc>(beta * Acc(c[i * scm + j * scn]));
          yr[j] = static_cast<T>(v);
        }
      }
    }, 1);
  }

  void run(DataType t, const void *a, const void *b, const void *c, void *y) const {
    dispatchNumeric(t, [&](auto tag) {
      using T = decltype(tag);
      run(static_cast<const T *>(a), static_cast<const T *>(b), static_cast<const T *>(c), static_cast<T *>(y));
    });
  }
};

/// Strides of C broadcast (unidirectionally) to [m, n].
std::pair<int64_t, int64_t> gemmCStrides(const Shape &c) {
  Shape d(2, 1);
  std::copy(c.begin(), c.end(), d.end() - static_cast<int64_t>(c.size()));
  return {d[0] == 1 ? 0 : d[1], d[1] == 1 ? 0 : 1};
}

/// Offsets of each batch element of an operand with batch shape `mine` (1 = broadcast) in `batch`.
std::vector<int64_t> matmulBatchOffsets(const Shape &mine, const Shape &batch, int64_t matrixSize) {
  int64_t total = 1;
  for (auto d : batch) total *= d;
  std::vector<int64_t> off(static_cast<size_t>(total));
  for (int64_t f = 0; f < total; ++f) {
    int64_t rest = f, o = 0, stride = matrixSize;
    for (size_t d = batch.size(); d-- > 0;) {
      int64_t idx = rest % batch[d];
      rest /= batch[d];
      if (mine[d] != 1) o += idx * stride;
      stride *= mine[d];
    }
    off[f] = o;
  }
  return off;
}

GemmLoop matmulLoop(const MatMulGeometry &g) {
  GemmLoop l;
  l.m = g.m, l.n = g.n, l.k = g.k;
  l.sam = g.k, l.sak = 1, l.sbk = g.n, l.sbn = 1;
  l.aOffset = matmulBatchOffsets(g.batchA, g.batch, g.m * g.k);
  l.bOffset = matmulBatchOffsets(g.batchB, g.batch, g.k * g.n);
  return l;
}

void addGemmLoopStep(popx::Sequence &prog, const popx::Opx &opx, GemmLoop loop) {
  auto t = opx.inInfo(0).dataType();
  const void *a = opx.getInTensor(0).raw(), *b = opx.getInTensor(1).raw();
  const void *c = opx.hasInput(2) ? opx.getInTensor(2).raw() : nullptr;
  void *y = opx.getOutTensor(0).raw();
  prog.add([=] { loop.run(t, a, b, c, y); });
}

#ifdef POPART_WITH_DNNL
using dnnl::memory;

/// Row-major [rows, cols] matrix read with strides (transposed when `trans`).
memory::desc gemmMatrixDesc(int64_t rows, int64_t cols, bool trans) {
  return memory::desc({rows, cols}, memory::data_type::f32, trans ? memory::dims{1, rows} : memory::dims{cols, 1});
}

/// Creates the primitive or returns false when oneDNN has no implementation.
bool makeDnnlMatmul(const memory::desc &a, const memory::desc &b, const memory::desc &y, const dnnl::primitive_attr &attr,
                dnnl::matmul &out) {
  try {
    out = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl_ctx::engine(), a, b, y, attr));
    return true;
  } catch (const dnnl::error &) {
    return false;
  }
}

bool growMatmulDnnl(popx::Sequence &prog, const popx::Opx &opx) {
  auto g = matmulGeometry(opx.inShape(0), opx.inShape(1));
  bool flat = g.batchSize() == 1 || std::all_of(g.batchB.begin(), g.batchB.end(), [](int64_t d) { return d == 1; });
  auto withMatrix = [](Shape batch, int64_t r, int64_t c) {
    batch.insert(batch.end(), {r, c});
    return batch;
  };
  int64_t rows = g.batchSize() * g.m;
  Shape da = flat ? Shape{rows, g.k} : withMatrix(g.batchA, g.m, g.k);
  Shape db = flat ? Shape{g.k, g.n} : withMatrix(g.batchB, g.k, g.n);
  Shape dy = flat ? Shape{rows, g.n} : withMatrix(g.batch, g.m, g.n);
  if (da.size() > DNNL_MAX_NDIMS || rows * g.k * g.n == 0) return false;
  dnnl::matmul mm;
  auto ma = dnnl_ctx::plainDesc(da), mb = dnnl_ctx::plainDesc(db), my = dnnl_ctx::plainDesc(dy);
  if (!makeDnnlMatmul(ma, mb, my, {}, mm)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto a = step->staging.in(opx, 0), b = step->staging.in(opx, 1), y = step->staging.out(opx, 0);
  step->add(mm, {{DNNL_ARG_SRC, dnnl_ctx::wrap(ma, a.raw())},
                 {DNNL_ARG_WEIGHTS, dnnl_ctx::wrap(mb, b.raw())},
                 {DNNL_ARG_DST, dnnl_ctx::wrap(my, y.raw())}});
  addStep(prog, step, opx);
  return true;
}

bool isReferenceMatmul(const dnnl::primitive &p) {
  const char *impl = nullptr;
  dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &impl);
  return impl && std::string(impl).rfind("ref", 0) == 0;
}

/// alpha * AB [+ C] as post-ops: [alpha/beta * x], [+ C], [beta * x] (no C: [alpha * x]).
bool makeGemm(const GemmLoop &l, bool ta, bool tb, const Shape &cDims, dnnl::matmul &mm) {
  bool withC = !cDims.empty();
  double pre = withC ? l.alpha / l.beta : l.alpha;
  dnnl::post_ops ops;
  if (pre != 1.0) ops.append_eltwise(dnnl::algorithm::eltwise_linear, static_cast<float>(pre), 0.f);
  if (withC) {
    ops.append_binary(dnnl::algorithm::binary_add, dnnl_ctx::plainDesc(cDims));
    if (l.beta != 1.0) ops.append_eltwise(dnnl::algorithm::eltwise_linear, static_cast<float>(l.beta), 0.f);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return makeDnnlMatmul(gemmMatrixDesc(l.m, l.k, ta), gemmMatrixDesc(l.k, l.n, tb), dnnl_ctx::plainDesc({l.m, l.n}), attr, mm);
}

/// C fused as a post-op when oneDNN has a fast kernel for its broadcast, else added by a loop afterwards.
bool growGemmDnnl(popx::Sequence &prog, const popx::Opx &opx, const GemmLoop &l, bool ta, bool tb) {
  if (l.m * l.n * l.k == 0) return false;
  bool withC = opx.hasInput(2) && l.beta != 0.0;
  Shape cDims(2, 1);
  if (withC) {
    const auto &c = opx.inShape(2);
    std::copy(c.begin(), c.end(), cDims.end() - static_cast<int64_t>(c.size()));
  }
  dnnl::matmul mm;
  bool fused = withC && makeGemm(l, ta, tb, cDims, mm) && !isReferenceMatmul(mm);
  if (!fused && !makeGemm(l, ta, tb, {}, mm)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto a = step->staging.in(opx, 0), b = step->staging.in(opx, 1), y = step->staging.out(opx, 0);
  PrimitiveStep::Args args{{DNNL_ARG_SRC, dnnl_ctx::wrap(gemmMatrixDesc(l.m, l.k, ta), a.raw())},
                           {DNNL_ARG_WEIGHTS, dnnl_ctx::wrap(gemmMatrixDesc(l.k, l.n, tb), b.raw())},
                           {DNNL_ARG_DST, dnnl_ctx::wrap(dnnl_ctx::plainDesc({l.m, l.n}), y.raw())}};
  if (withC) {
    auto c = step->staging.in(opx, 2);
    if (fused) {
      int binaryIndex = l.alpha / l.beta != 1.0 ? 1 : 0;
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(binaryIndex) | DNNL_ARG_SRC_1] = dnnl_ctx::wrap(dnnl_ctx::plainDesc(cDims), c.raw());
    } else {
      step->epilogue = [l, c, y] {
        const float *cp = c.data<float>();
        float *yp = y.data<float>();
        float beta = static_cast<float>(l.beta);
        popx::Opx::parallelFor(l.m, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t j = 0; j < l.n; ++j) yp[i * l.n + j] += beta * cp[i * l.scm + j * l.scn];
        }, 16);
      };
    }
  }
  step->add(mm, std::move(args));
  addStep(prog, step, opx);
  return true;
}
#endif

class MatMulOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(inInfo(0).dataType()) && growMatmulDnnl(prog, *this)) return;
#endif
    addGemmLoopStep(prog, *this, matmulLoop(matmulGeometry(inShape(0), inShape(1))));
  }
};

class GemmOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    bool ta = op.attr<Attributes::Int>("transA", 0) != 0, tb = op.attr<Attributes::Int>("transB", 0) != 0;
    GemmLoop l;
    l.m = outShape(0)[0], l.n = outShape(0)[1], l.k = inShape(0)[ta ? 0 : 1];
    l.sam = ta ? 1 : l.k, l.sak = ta ? l.m : 1;
    l.sbk = tb ? 1 : l.n, l.sbn = tb ? l.k : 1;
    l.alpha = op.attr<Attributes::Float>("alpha", 1.0f);
    l.beta = hasInput(2) ? op.attr<Attributes::Float>("beta", 1.0f) : 0.0;
    if (hasInput(2)) std::tie(l.scm, l.scn) = gemmCStrides(inShape(2));
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(inInfo(0).dataType()) && growGemmDnnl(prog, *this, l, ta, tb)) return;
#endif
    addGemmLoopStep(prog, *this, l);
  }
};

} // namespace
static popx::OpxCreator<MatMulOpx> matmulOpxCreator(onnxOp("MatMul"));
static popx::OpxCreator<GemmOpx> gemmOpxCreator(onnxOp("Gemm"));
} // namespace popart::cpu
