// MatMul and Gemm: oneDNN matmul for FLOAT/FLOAT16 (FLOAT16 staged in float; Gemm's alpha, beta and C
// as post-ops alpha/beta * AB, + C, * beta), plain loops for DOUBLE and integers:
// Y[b, i, j] = alpha * sum_k A[b, i, k] * B[b, k, j] + beta * C[i, j].
// GemmFused (inference; patterns/gemm_fusion.cpp): Gemm's product over A's rows (leading dims included),
// then its activation (ReLU or erf GELU) as an eltwise post-op after C's.
// Gradients are products of the same kind over transposed (strided) views: MatMul's dA = dY B^T and
// dB = A^T dY summed over broadcast batch dims (folded into the contraction when possible, else a
// batched product into a scratch tensor and a sum), Gemm's dA/dB likewise and dC = beta * sum(dY).
#include "cpu/devicex.hpp"
#include "dispatch.hpp"
#include "relu.hpp"
#include "replica_weight_grad.hpp"
#include "ops/matmul_shape.hpp"
#include "popart/popx/opx.hpp"
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <string>
#include <tuple>
#ifdef POPART_WITH_DNNL
#include "cpu/devicex.hpp"
#include "cpu/dnnl/primitive_step.hpp"
#include "popart/tensor.hpp"
#endif

namespace popart::cpu {
namespace {

/// GemmActivation `a` (0 none, 1 ReLU, 2 erf GELU) of v.
template <class Acc> Acc activate(Acc v, int64_t a) {
  if (a == 1) return v < Acc(0) ? Acc(0) : v;
  if constexpr (std::is_floating_point_v<Acc>)
    if (a == 2) return Acc(0.5) * v * (Acc(1) + std::erf(v * Acc(0.70710678118654752)));
  return v;
}

/// Y[q, i, j] = alpha * sum_t sum_k A_qt[i, k] * B_qt[k, j] + beta * C[i, j] over strided operands:
/// `groups` output matrices, each the sum of `terms` products (a gradient summed over broadcast dims).
struct GemmLoop {
  int64_t m = 1, n = 1, k = 1;
  int64_t groups = 1, terms = 1;
  std::vector<int64_t> aOffset{0}, bOffset{0};  // of product t of group q at q * terms + t
  int64_t sam = 0, sak = 1, sbk = 0, sbn = 1;   // element strides of A[i, k] and B[k, j]
  double alpha = 1.0, beta = 0.0;
  int64_t scm = 0, scn = 0;  // strides of C (0 along broadcast dimensions)
  int64_t activation = 0;    // GemmFused: GemmActivation applied last

  template <class T> void run(const T *a, const T *b, const T *c, T *y) const {
    using Acc = compute_t<T>;
    popx::Opx::parallelFor(groups * m, [&](int64_t r0, int64_t r1) {
      std::vector<Acc> acc(static_cast<size_t>(n));
      for (int64_t r = r0; r < r1; ++r) {
        int64_t q = r / m, i = r % m;
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t t = q * terms; t < (q + 1) * terms; ++t) {
          const T *ab = a + aOffset[t] + i * sam, *bb = b + bOffset[t];
          for (int64_t kk = 0; kk < k; ++kk) {
            Acc av = ab[kk * sak];
            const T *brow = bb + kk * sbk;
            for (int64_t j = 0; j < n; ++j) acc[j] += av * Acc(brow[j * sbn]);
          }
        }
        T *yr = y + r * n;
        for (int64_t j = 0; j < n; ++j) {
          Acc v = alpha == 1.0 ? acc[j] : static_cast<Acc>(alpha * acc[j]);
          if (c && beta != 0.0) v += static_cast<Acc>(beta * Acc(c[i * scm + j * scn]));
          yr[j] = static_cast<T>(activate(v, activation));
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

/// Batched out[q] = sum over the batch elements f of group q of X[f] Y[f]: X [rows, inner] and
/// Y [inner, cols] are stored plain or transposed; batch shapes have 1 along broadcast dims.
struct BatchedProduct {
  Shape batchX, batchY, batchOut, batch;
  int64_t rows = 1, inner = 1, cols = 1;
  bool transX = false, transY = false;
  int64_t batchSize() const { return shapeProduct(batch); }
  int64_t groups() const { return shapeProduct(batchOut); }
  static int64_t shapeProduct(const Shape &s) {
    int64_t p = 1;
    for (auto d : s) p *= d;
    return p;
  }
};

/// The forward product (X = A, Y = B) or a gradient: dA = dY B^T (lhs), dB = A^T dY (rhs).
BatchedProduct matmulProduct(const MatMulGeometry &g, int gradOf = -1) {
  BatchedProduct p;
  p.batch = g.batch;
  if (gradOf == 0) {
    p.batchX = g.batch, p.batchY = g.batchB, p.batchOut = g.batchA;
    p.rows = g.m, p.inner = g.n, p.cols = g.k, p.transY = true;
  } else if (gradOf == 1) {
    p.batchX = g.batchA, p.batchY = g.batch, p.batchOut = g.batchB;
    p.rows = g.k, p.inner = g.m, p.cols = g.n, p.transX = true;
  } else {
    p.batchX = g.batchA, p.batchY = g.batchB, p.batchOut = g.batch;
    p.rows = g.m, p.inner = g.k, p.cols = g.n;
  }
  return p;
}

/// The batch elements of each output group, group by group (terms = batchSize / groups each).
std::vector<int64_t> productGroups(const BatchedProduct &p) {
  auto q = matmulBatchOffsets(p.batchOut, p.batch, 1);
  int64_t groups = p.groups(), terms = groups ? p.batchSize() / groups : 0;
  std::vector<int64_t> fill(static_cast<size_t>(groups), 0), order(q.size());
  for (size_t f = 0; f < q.size(); ++f) order[q[f] * terms + fill[q[f]]++] = static_cast<int64_t>(f);
  return order;
}

GemmLoop productLoop(const BatchedProduct &p) {
  GemmLoop l;
  l.m = p.rows, l.k = p.inner, l.n = p.cols;
  l.sam = p.transX ? 1 : p.inner, l.sak = p.transX ? p.rows : 1;
  l.sbk = p.transY ? 1 : p.cols, l.sbn = p.transY ? p.inner : 1;
  l.groups = p.groups();
  l.terms = l.groups ? p.batchSize() / l.groups : 0;
  auto xo = matmulBatchOffsets(p.batchX, p.batch, p.rows * p.inner);
  auto yo = matmulBatchOffsets(p.batchY, p.batch, p.inner * p.cols);
  auto order = productGroups(p);
  l.aOffset.resize(order.size()), l.bOffset.resize(order.size());
  for (size_t s = 0; s < order.size(); ++s) l.aOffset[s] = xo[order[s]], l.bOffset[s] = yo[order[s]];
  return l;
}

/// The loop over inputs x, y (and C at input 2 when `withC`) into output 0.
void addGemmLoopStep(popx::Sequence &prog, const popx::Opx &opx, GemmLoop loop, InIndex x = 0, InIndex y = 1,
                     bool withC = true) {
  auto t = opx.outInfo(0).dataType();
  const void *a = opx.getInTensor(x).raw(), *b = opx.getInTensor(y).raw();
  const void *c = withC && opx.hasInput(2) ? opx.getInTensor(2).raw() : nullptr;
  void *out = opx.getOutTensor(0).raw();
  prog.add([=] { loop.run(t, a, b, c, out); });
}

/// dC = beta * dY [m, n] summed onto C's broadcast shape (strides scm, scn; 0 = summed).
template <class T> void gemmGradC(const T *dy, T *dc, int64_t m, int64_t n, int64_t scm, int64_t scn, double beta) {
  using Acc = compute_t<T>;
  int64_t outer = scm ? m : 1, inner = scn ? n : 1;  // dC is [outer, inner]
  popx::Opx::parallelFor(outer * inner, [&](int64_t e0, int64_t e1) {
    for (int64_t e = e0; e < e1; ++e) {
      int64_t i0 = e / inner, j0 = e % inner;
      Acc acc = 0;
      for (int64_t i = scm ? i0 : 0; i < (scm ? i0 + 1 : m); ++i)
        for (int64_t j = scn ? j0 : 0; j < (scn ? j0 + 1 : n); ++j) acc += Acc(dy[i * n + j]);
      dc[i0 * scm + j0 * scn] = static_cast<T>(static_cast<Acc>(beta * acc));
    }
  }, 16);
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

/// oneDNN 3.2's brgemm matmul copies a plain row-major B ("weights") block by block while it
/// runs, slowly for a wide B (3x at n = 3072) or many rows (1.1x at 512): B is then reordered
/// first, once per run, into the layout the primitive picks (a workspace tensor). Small products
/// keep a B that ops write plain (a reorder per run costs more than it saves); a B only the host
/// writes is always reordered, once per host write (the MLP's layers: 17% less time).
bool packsB(int64_t rows, int64_t n, bool transB) { return !transB && (rows >= 512 || n >= 1536); }

/// `b` with any layout (the primitive picks) when packsB, else `b` itself.
memory::desc weightsQuery(const memory::desc &b, bool pack) {
  return pack ? memory::desc(b.get_dims(), memory::data_type::f32, memory::format_tag::any) : b;
}

/// B bound for matmul `mm`: the plain memory, or a reorder of it into the layout mm chose.
memory boundB(PrimitiveStep &step, const dnnl::matmul &mm, const memory::desc &plain, void *data,
              const uint64_t *hostWrites) {
  const_dnnl_memory_desc_t want = dnnl_primitive_desc_query_md(mm.get_primitive_desc(), dnnl_query_weights_md, 0);
  dnnl_memory_desc_t copy = nullptr;
  dnnl_memory_desc_clone(&copy, want);
  return step.inputCachedAs(dnnl_ctx::wrap(plain, data), memory::desc(copy), hostWrites);
}

/// Devicex::hostWriteCounter of input `i` (null: written by ops, reordered every run).
const uint64_t *hostWritesOf(const popx::Opx &opx, InIndex i) {
  return opx.dv_p->hostWriteCounter(opx.op_p->inTensor(i));
}

/// B read through a copy in the primitive's layout made once per host write (FLOAT, only the host writes it):
/// the executor may then free B's plain device buffer (Devicex::dropPlainCopies).
void keepsOnlyCachedB(const popx::Opx &opx, InIndex b, const std::shared_ptr<PrimitiveStep> &step) {
  for (size_t i = 0; i < step->cachedCount(); ++i)
    opx.dv_p->addDerivedCopy(opx.op_p->inTensor(b), {[step, i](const void *p) { step->refreshCached(i, p); },
                                                     [step, i](void *p) { step->writeBackCached(i, p); }});
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
  const uint64_t *bWrites = opx.inInfo(1).dataType() == DataType::FLOAT ? hostWritesOf(opx, 1) : nullptr;
  if (!makeDnnlMatmul(ma, weightsQuery(mb, flat && (bWrites || packsB(rows, g.n, false))), my, {}, mm)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto a = step->staging.in(opx, 0), b = step->staging.in(opx, 1), y = step->staging.out(opx, 0);
  auto bm = boundB(*step, mm, mb, b.raw(), bWrites);
  if (bWrites) keepsOnlyCachedB(opx, 1, step);
  auto am = dnnl_ctx::wrap(ma, a.raw());
  readsStream(opx, 0, am);
  step->add(mm, {{DNNL_ARG_SRC, am},
                 {DNNL_ARG_WEIGHTS, bm},
                 {DNNL_ARG_DST, dnnl_ctx::wrap(my, y.raw())}});
  addStep(prog, step, opx);
  return true;
}

bool isReferenceMatmul(const dnnl::primitive &p) {
  const char *impl = nullptr;
  dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &impl);
  return impl && std::string(impl).rfind("ref", 0) == 0;
}

/// alpha * AB [+ C] as post-ops: [alpha/beta * x], [+ C], [beta * x] (no C: [alpha * x]), then the activation
/// if `activate`.
bool makeGemm(const GemmLoop &l, bool ta, bool tb, const Shape &cDims, bool activate, bool cachedB, dnnl::matmul &mm) {
  bool withC = !cDims.empty();
  double pre = withC ? l.alpha / l.beta : l.alpha;
  dnnl::post_ops ops;
  if (pre != 1.0) ops.append_eltwise(dnnl::algorithm::eltwise_linear, static_cast<float>(pre), 0.f);
  if (withC) {
    ops.append_binary(dnnl::algorithm::binary_add, dnnl_ctx::plainDesc(cDims));
    if (l.beta != 1.0) ops.append_eltwise(dnnl::algorithm::eltwise_linear, static_cast<float>(l.beta), 0.f);
  }
  if (activate && l.activation == 2) ops.append_eltwise(dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  return makeDnnlMatmul(gemmMatrixDesc(l.m, l.k, ta), weightsQuery(gemmMatrixDesc(l.k, l.n, tb), cachedB || packsB(l.m, l.n, tb)),
                        dnnl_ctx::plainDesc({l.m, l.n}), attr, mm);
}

/// The operands of a Gemm-like product: inputs a, b (transposed when ta/tb) and C (input 2) if withC.
struct GemmOperands {
  InIndex a = 0, b = 1;
  bool ta = false, tb = false, withC = false;
};

/// C (and GemmFused's GELU) fused as post-ops when oneDNN has a fast kernel for C's broadcast, else applied by a
/// loop afterwards. ReLU is a pass over the (cache-resident) output after the product: as a post-op it would be
/// oneDNN's max(x, 0), which turns NaN into 0, or elu (dnnl_ctx::appendRelu), 2.5% slower on the MLP.
bool growGemmDnnl(popx::Sequence &prog, const popx::Opx &opx, const GemmLoop &l, const GemmOperands &o) {
  if (l.m * l.n * l.k == 0) return false;
  bool withC = o.withC && opx.hasInput(2) && l.beta != 0.0;
  Shape cDims(2, 1);
  if (withC) {
    const auto &c = opx.inShape(2);
    std::copy(c.begin(), c.end(), cDims.end() - static_cast<int64_t>(c.size()));
  }
  dnnl::matmul mm;
  bool act = l.activation != 0;
  const uint64_t *bWrites = opx.inInfo(o.b).dataType() == DataType::FLOAT ? hostWritesOf(opx, o.b) : nullptr;
  const bool cachedB = bWrites != nullptr;
  bool fused = withC && makeGemm(l, o.ta, o.tb, cDims, act, cachedB, mm) && !isReferenceMatmul(mm);
  bool actLater = act && withC && !fused;  // then the epilogue adds C and applies the activation
  if (!fused && !makeGemm(l, o.ta, o.tb, {}, act && !actLater, cachedB, mm)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto a = step->staging.in(opx, o.a), b = step->staging.in(opx, o.b), y = step->staging.out(opx, 0);
  auto bm = boundB(*step, mm, gemmMatrixDesc(l.k, l.n, o.tb), b.raw(), bWrites);
  if (bWrites) keepsOnlyCachedB(opx, o.b, step);
  auto am = dnnl_ctx::wrap(gemmMatrixDesc(l.m, l.k, o.ta), a.raw());
  readsStream(opx, o.a, am);
  PrimitiveStep::Args args{{DNNL_ARG_SRC, am},
                           {DNNL_ARG_WEIGHTS, bm},
                           {DNNL_ARG_DST, dnnl_ctx::wrap(dnnl_ctx::plainDesc({l.m, l.n}), y.raw())}};
  if (withC) {
    auto c = step->staging.in(opx, 2);
    if (fused) {
      int binaryIndex = l.alpha / l.beta != 1.0 ? 1 : 0;
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(binaryIndex) | DNNL_ARG_SRC_1] = dnnl_ctx::wrap(dnnl_ctx::plainDesc(cDims), c.raw());
    } else {
      step->epilogue = [l, c, y, actLater] {
        const float *cp = c.data<float>();
        float *yp = y.data<float>();
        float beta = static_cast<float>(l.beta);
        popx::Opx::parallelFor(l.m, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i)
            for (int64_t j = 0; j < l.n; ++j) {
              float v = yp[i * l.n + j] + beta * cp[i * l.scm + j * l.scn];
              yp[i * l.n + j] = actLater ? activate(v, l.activation) : v;
            }
        }, 16);
      };
    }
  }
  if (l.activation == 1 && !actLater)
    step->epilogue = [added = step->epilogue, y, n = l.m * l.n] {
      if (added) added();
      relu(y.data<float>(), y.data<float>(), n);
    };
  step->add(mm, std::move(args));
  addStep(prog, step, opx);
  return true;
}

/// [batch..., r, c] view of an operand stored as [batch..., r, c] (or [batch..., c, r] when trans).
memory::desc productDesc(const Shape &batch, int64_t r, int64_t c, bool trans) {
  memory::dims d(batch.begin(), batch.end()), st(batch.size() + 2);
  d.insert(d.end(), {r, c});
  st[batch.size()] = trans ? 1 : c, st[batch.size() + 1] = trans ? r : 1;
  for (int64_t i = static_cast<int64_t>(batch.size()) - 1, s = r * c; i >= 0; s *= batch[i], --i) st[i] = s;
  return memory::desc(d, memory::data_type::f32, st);
}

bool batchAllOnes(const Shape &s) {
  return std::all_of(s.begin(), s.end(), [](int64_t d) { return d == 1; });
}

/// One oneDNN matmul for a BatchedProduct of inputs x, y into output 0. Batch dims the output
/// does not have are folded into the contraction (X^T Y over whole batches), else summed from a
/// scratch tensor by the step's epilogue.
/// `accumulate`: output 0 (FLOAT, no staging) += the product instead of := (oneDNN's sum post-op).
bool growProductDnnl(popx::Sequence &prog, const popx::Opx &opx, const BatchedProduct &p, InIndex x, InIndex y,
                     bool accumulate = false) {
  int64_t total = p.batchSize();
  if (total * p.rows * p.inner * p.cols == 0 || p.batch.size() + 2 > DNNL_MAX_NDIMS) return false;
  bool direct = p.batchOut == p.batch;
  bool fold = !direct && p.transX && !p.transY && p.batchX == p.batch && p.batchY == p.batch && batchAllOnes(p.batchOut);
  bool flat = direct && !p.transX && batchAllOnes(p.batchY);  // X's batch merges into its rows
  memory::desc mx, my, md;
  if (fold) {
    mx = productDesc({}, p.rows, total * p.inner, true);
    my = dnnl_ctx::plainDesc({total * p.inner, p.cols});
    md = dnnl_ctx::plainDesc({p.rows, p.cols});
  } else if (flat) {
    mx = dnnl_ctx::plainDesc({total * p.rows, p.inner});
    my = productDesc({}, p.inner, p.cols, p.transY);
    md = dnnl_ctx::plainDesc({total * p.rows, p.cols});
  } else {
    mx = productDesc(p.batchX, p.rows, p.inner, p.transX);
    my = productDesc(p.batchY, p.inner, p.cols, p.transY);
    md = productDesc(p.batch, p.rows, p.cols, false);
  }
  dnnl::matmul mm;
  bool pack = (fold || flat || p.batch.empty()) && packsB(fold ? p.rows : total * p.rows, p.cols, !fold && p.transY);
  dnnl::primitive_attr attr;
  if (accumulate && (direct || fold)) {  // the epilogue below sums into the output itself otherwise
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  if (!makeDnnlMatmul(mx, weightsQuery(my, pack), md, attr, mm)) return false;
  auto step = std::make_shared<PrimitiveStep>();
  auto xv = step->staging.in(opx, x), yv = step->staging.in(opx, y), out = step->staging.out(opx, 0);
  auto ym = boundB(*step, mm, my, yv.raw(), nullptr);
  popx::TensorView dst = out;
  if (!direct && !fold) {
    Shape full = p.batch;
    full.insert(full.end(), {p.rows, p.cols});
    dst = opx.dv_p->workspace(TensorInfo(DataType::FLOAT, full));
    auto order = std::make_shared<const std::vector<int64_t>>(productGroups(p));
    int64_t mat = p.rows * p.cols, terms = total / p.groups();
    step->epilogue = [order, dst, out, mat, terms, accumulate] {
      const float *src = dst.data<float>();
      float *o = out.data<float>();
      popx::Opx::parallelFor(out.nelms(), [&](int64_t e0, int64_t e1) {
        for (int64_t e = e0; e < e1; ++e) {
          int64_t q = e / mat, i = e % mat;
          float acc = 0.f;
          for (int64_t t = q * terms; t < (q + 1) * terms; ++t) acc += src[(*order)[t] * mat + i];
          o[e] = accumulate ? o[e] + acc : acc;
        }
      });
    };
  }
  step->add(mm, {{DNNL_ARG_SRC, dnnl_ctx::wrap(mx, xv.raw())},
                 {DNNL_ARG_WEIGHTS, ym},
                 {DNNL_ARG_DST, dnnl_ctx::wrap(md, dst.raw())}});
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
    addGemmLoopStep(prog, *this, productLoop(matmulProduct(matmulGeometry(inShape(0), inShape(1)))));
  }
};

/// MatMulLhsGrad (dY, B -> dA), MatMulRhsGrad (dY, A -> dB) and MatMulRhsGradAccumulate (dY, A, acc -> acc + dB;
/// FLOAT, the output is the accumulator's buffer).
class MatMulGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    if (dv_p->productRunsInReduction(op_p)) return;  // the gradient's reduction computes it (replica_weight_grad.hpp)
    if (const auto mean = dv_p->gathersAccumulation(op_p))  // from every replica's samples, into the shared accumulator
      return growReplicaWeightGrad(prog, *this, *op_p, 0, *mean, true);
    bool lhs = op_p->opid.type == "MatMulLhsGrad", accumulate = op_p->opid.type == "MatMulRhsGradAccumulate";
    auto g = lhs ? matmulGeometry(outShape(0), inShape(1)) : matmulGeometry(inShape(1), outShape(0));
    auto p = matmulProduct(g, lhs ? 0 : 1);
    InIndex x = lhs ? 0 : 1, y = lhs ? 1 : 0;
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(outInfo(0).dataType()) && growProductDnnl(prog, *this, p, x, y, accumulate)) return;
#endif
    if (!accumulate) return addGemmLoopStep(prog, *this, productLoop(p), x, y, false);
    // The product into a buffer of its own, then added.
    popx::TensorView part = createTensor(outInfo(0)), out = getOutTensor(0);
    const void *a = getInTensor(x).raw(), *b = getInTensor(y).raw();
    GemmLoop loop = productLoop(p);
    prog.add([=] {
      loop.run(DataType::FLOAT, a, b, nullptr, part.raw());
      float *o = out.data<float>();
      const float *q = part.data<float>();
      popx::Opx::parallelFor(out.nelms(), [&](int64_t e0, int64_t e1) {
        for (int64_t e = e0; e < e1; ++e) o[e] += q[e];
      });
    });
  }
};

class GemmOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    bool ta = op.attr<Attributes::Int>("transA", 0) != 0, tb = op.attr<Attributes::Int>("transB", 0) != 0;
    GemmLoop l;
    l.n = outShape(0).back(), l.m = l.n ? outInfo(0).nelms() / l.n : 0, l.k = inShape(1)[tb ? 1 : 0];
    l.activation = op.attr<Attributes::Int>("activation", 0);
    l.sam = ta ? 1 : l.k, l.sak = ta ? l.m : 1;
    l.sbk = tb ? 1 : l.n, l.sbn = tb ? l.k : 1;
    l.alpha = op.attr<Attributes::Float>("alpha", 1.0f);
    l.beta = hasInput(2) ? op.attr<Attributes::Float>("beta", 1.0f) : 0.0;
    if (hasInput(2)) std::tie(l.scm, l.scn) = gemmCStrides(inShape(2));
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(inInfo(0).dataType()) && growGemmDnnl(prog, *this, l, {0, 1, ta, tb, true})) return;
#endif
    addGemmLoopStep(prog, *this, l);
  }
};

/// GemmGrad: inputs dY [m, n] and (for A, B) the other matrix; `arg` says which gradient.
class GemmGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    if (dv_p->productRunsInReduction(op_p)) return;  // the gradient's reduction computes it (replica_weight_grad.hpp)
    const Op &op = *op_p;
    int64_t arg = op.attr<Attributes::Int>("arg");
    bool ta = op.attr<Attributes::Int>("transA", 0) != 0, tb = op.attr<Attributes::Int>("transB", 0) != 0;
    int64_t m = inShape(0)[0], n = inShape(0)[1];
    if (arg == 2) return growGradC(prog, m, n, op.attr<Attributes::Float>("beta", 1.0f));
    // dA = alpha dY B'^T ([m, k]; transA: alpha B' dY^T [k, m]); dB = alpha A'^T dY ([k, n]; transB: alpha dY^T A').
    bool trans = arg == 0 ? ta : tb, other = arg == 0 ? tb : ta;
    int64_t k = arg == 0 ? inShape(1)[tb ? 1 : 0] : inShape(1)[ta ? 0 : 1];
    GemmOperands o;
    GemmLoop l;
    l.alpha = op.attr<Attributes::Float>("alpha", 1.0f);
    if (!trans) {  // dY or the other matrix first, as the product reads
      o = arg == 0 ? GemmOperands{0, 1, false, !other} : GemmOperands{1, 0, !other, false};
      l.m = arg == 0 ? m : k, l.k = arg == 0 ? n : m, l.n = arg == 0 ? k : n;
    } else {
      o = arg == 0 ? GemmOperands{1, 0, other, true} : GemmOperands{0, 1, true, other};
      l.m = arg == 0 ? k : n, l.k = arg == 0 ? n : m, l.n = arg == 0 ? m : k;
    }
    setStrides(l, o, inShape(o.a), inShape(o.b));
#ifdef POPART_WITH_DNNL
    if (dnnl_ctx::usesDnnl(outInfo(0).dataType()) && growGemmDnnl(prog, *this, l, o)) return;
#endif
    addGemmLoopStep(prog, *this, l, o.a, o.b, false);
  }

private:
  /// Element strides of the [m, k] and [k, n] views of stored matrices a and b.
  static void setStrides(GemmLoop &l, const GemmOperands &o, const Shape &a, const Shape &b) {
    l.sam = o.ta ? 1 : a[1], l.sak = o.ta ? a[1] : 1;
    l.sbk = o.tb ? 1 : b[1], l.sbn = o.tb ? b[1] : 1;
  }

  void growGradC(popx::Sequence &prog, int64_t m, int64_t n, double beta) const {
    auto [scm, scn] = gemmCStrides(outShape(0));
    popx::TensorView dy = getInTensor(0), dc = getOutTensor(0);
    dispatchNumeric(dy.dtype(), [&, scm = scm, scn = scn](auto tag) {
      using T = decltype(tag);
      prog.add([=] { gemmGradC(dy.data<T>(), dc.data<T>(), m, n, scm, scn, beta); });
    });
  }
};

} // namespace
static popx::OpxCreator<MatMulOpx> matmulOpxCreator(onnxOp("MatMul"));
static popx::OpxCreator<MatMulGradOpx> matmulGradOpxCreator(std::vector<OperatorIdentifier>{
    internalOp("MatMulLhsGrad"), internalOp("MatMulRhsGrad"), internalOp("MatMulRhsGradAccumulate")});
static popx::OpxCreator<GemmOpx> gemmOpxCreator(std::vector<OperatorIdentifier>{onnxOp("Gemm"),
                                                                                 internalOp("GemmFused")});
static popx::OpxCreator<GemmGradOpx> gemmGradOpxCreator(internalOp("GemmGrad"));
} // namespace popart::cpu
