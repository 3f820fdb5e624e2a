// Stand-alone kernel benchmark: the oneDNN primitives (and, when built with MKL, cblas_sgemm for the
// same GEMM shapes) that the benchmark workloads run, at their exact shapes and with the primitive
// attributes popart uses (cpp/src/cpu/kernels/matmul.cpp, conv.cpp). Built once per library by
// build.sh; run.py interleaves the builds and summarises. Not part of the project's build or CI.
//
//   kernel_bench --threads N [--time SECONDS] [--filter SUBSTRING] [--list] [--peak]
//
// Prints one JSON object per (case, backend) on stdout.
#include <dnnl.hpp>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
#include <tbb/global_control.h>
#endif
#ifdef KB_WITH_MKL
#include <mkl.h>
#endif

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

dnnl::engine &eng() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream &strm() {
  static dnnl::stream s(eng());
  return s;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
double cpuNow() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/// Memory over a fresh, filled buffer (kept alive by `keep`).
struct Buffers {
  std::vector<std::vector<float>> data;
  memory make(const memory::desc &md) {
    data.emplace_back(md.get_size() / sizeof(float) + 16);
    auto &v = data.back();
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.01f * static_cast<float>((i * 7919) % 200) - 1.0f;
    return memory(md, eng(), v.data());
  }
};

memory::desc plain(const memory::dims &d) {
  memory::dims s(d.size(), 1);
  for (size_t i = d.size() - 1; i > 0; --i) s[i - 1] = s[i] * d[i];
  return memory::desc(d, dt::f32, s);
}
/// [rows, cols] stored row-major, or transposed (stored [cols, rows]) when `t`.
memory::desc matrix(int64_t rows, int64_t cols, bool t) {
  return memory::desc({rows, cols}, dt::f32, t ? memory::dims{1, rows} : memory::dims{cols, 1});
}
memory::desc anyOf(const memory::dims &d) { return memory::desc(d, dt::f32, tag::any); }

/// A timed body: the primitives to execute once per iteration.
struct Runnable {
  std::string impl;
  std::function<void()> run;
  std::shared_ptr<Buffers> buffers;
  memory out;  // the result, summed after the first run to check the backends agree
};

/// GEMM-like case: Y[b] = act(op(A)[m, k] op(B)[k, n] + bias) with the project's B handling.
struct MatmulCase {
  int64_t batch = 1, heads = 1;  // >1: 4-D batched (attention), descriptors [batch, heads, m, k]
  int64_t m, k, n;
  bool ta = false, tb = false;
  bool bias = false;
  int act = 0;    // 0 none, 1 relu, 2 erf GELU
  int packB = 0;  // 0 plain B, 1 packed once (host-written weights), 2 reordered every run
};

Runnable dnnlMatmul(const MatmulCase &c) {
  auto bufs = std::make_shared<Buffers>();
  memory::desc a, b, y;
  if (c.batch * c.heads > 1) {
    a = plain({c.batch, c.heads, c.m, c.k}), b = plain({c.batch, c.heads, c.k, c.n}), y = plain({c.batch, c.heads, c.m, c.n});
  } else {
    a = matrix(c.m, c.k, c.ta), b = matrix(c.k, c.n, c.tb), y = plain({c.m, c.n});
  }
  dnnl::post_ops ops;
  if (c.bias) ops.append_binary(dnnl::algorithm::binary_add, plain({1, c.n}));
  if (c.act == 1) ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
  if (c.act == 2) ops.append_eltwise(dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  auto bq = c.packB ? anyOf(b.get_dims()) : b;
  dnnl::matmul::primitive_desc pd(eng(), a, bq, y, attr);
  dnnl::matmul mm(pd);
  auto ma = bufs->make(a), mb = bufs->make(b), my = bufs->make(y);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, ma}, {DNNL_ARG_DST, my}};
  if (c.bias) args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = bufs->make(plain({1, c.n}));
  Runnable r{pd.impl_info_str(), {}, bufs, my};
  if (pd.weights_desc() != b) {
    auto packed = bufs->make(pd.weights_desc());
    dnnl::reorder re(mb, packed);
    re.execute(strm(), mb, packed);
    strm().wait();
    args[DNNL_ARG_WEIGHTS] = packed;
    if (c.packB == 2) {
      r.impl += " +reorder(B) per run";
      r.run = [=] {
        re.execute(strm(), {{DNNL_ARG_FROM, mb}, {DNNL_ARG_TO, packed}});
        mm.execute(strm(), args);
        strm().wait();
      };
      return r;
    }
  } else {
    args[DNNL_ARG_WEIGHTS] = mb;
  }
  r.run = [=] {
    mm.execute(strm(), args);
    strm().wait();
  };
  return r;
}

#ifdef KB_WITH_MKL
/// Erf GELU over a row, vectorised (build.sh compiles this build with -ffast-math so that erff uses
/// glibc's vector variant, as a tuned GELU kernel would).
__attribute__((noinline)) void geluRow(float *row, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) row[j] = 0.5f * row[j] * (1.f + erff(row[j] * 0.70710678f));
}

/// Y[i, :] = act(Y[i, :] + bias) over rows in parallel.
void biasActivation(float *y, const float *bias, int64_t m, int64_t n, bool withBias, int act) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    float *row = y + i * n;
    if (withBias)
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) row[j] += bias[j];
    if (act == 1)
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) row[j] = row[j] < 0.f ? 0.f : row[j];
    if (act == 2) geluRow(row, n);
  }
}

/// cblas_sgemm (batched: cblas_sgemm_batch_strided) over the same operands. MKL has no post-ops, so the
/// bias and activation run after it as a separate OpenMP pass over Y (what popart would do with MKL).
Runnable mklGemm(const MatmulCase &c) {
  auto bufs = std::make_shared<Buffers>();
  int64_t bs = c.batch * c.heads;
  auto a = bufs->make(plain({bs, c.m, c.k})), b = bufs->make(plain({bs, c.k, c.n})), y = bufs->make(plain({bs, c.m, c.n}));
  auto bias = bufs->make(plain({1, c.n}));
  auto *pa = static_cast<float *>(a.get_data_handle()), *pb = static_cast<float *>(b.get_data_handle()),
       *py = static_cast<float *>(y.get_data_handle()), *pbias = static_cast<float *>(bias.get_data_handle());
  auto ta = c.ta ? CblasTrans : CblasNoTrans, tb = c.tb ? CblasTrans : CblasNoTrans;
  MKL_INT lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n, m = c.m, n = c.n, k = c.k;
  Runnable r{bs > 1 ? "mkl cblas_sgemm_batch_strided" : "mkl cblas_sgemm", {}, bufs, y};
  if (bs > 1) {
    r.run = [=] {
      cblas_sgemm_batch_strided(CblasRowMajor, ta, tb, m, n, k, 1.f, pa, lda, m * k, pb, ldb, k * n, 0.f, py, n, m * n,
                                bs);
    };
    return r;
  }
  bool withBias = c.bias;
  int act = c.act;
  if (withBias || act) r.impl += " + bias/activation pass";
  r.run = [=] {
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.f, pa, lda, pb, ldb, 0.f, py, n);
    if (withBias || act) biasActivation(py, pbias, m, n, withBias, act);
  };
  return r;
}
#endif

/// Convolution case, NCHW, groups 1.
struct ConvCase {
  int64_t n, ic, ih, iw, oc, kh, kw, stride, pad;
  int pass = 0;  // 0 forward (inference), 1 backward data, 2 backward weights (training)
  bool bias = false, bn = false, sum = false, relu = false;
  bool plainSrc = false;  // forward: the source is a plain NCHW graph input, reordered each run
  int64_t oh() const { return (ih + 2 * pad - kh) / stride + 1; }
  int64_t ow() const { return (iw + 2 * pad - kw) / stride + 1; }
};

Runnable dnnlConv(const ConvCase &c) {
  auto bufs = std::make_shared<Buffers>();
  memory::dims x{c.n, c.ic, c.ih, c.iw}, w{c.oc, c.ic, c.kh, c.kw}, y{c.n, c.oc, c.oh(), c.ow()};
  memory::dims st{c.stride, c.stride}, dil{0, 0}, pd_{c.pad, c.pad};
  auto algo = dnnl::algorithm::convolution_direct;
  std::vector<std::pair<dnnl::primitive, std::unordered_map<int, memory>>> prims;
  std::string impl;
  // Training passes use plain NCHW/OIHW tensors at their boundaries (reorders each run), as popart does.
  auto in = [&](const memory::desc &want, const memory::dims &d, bool perRun) {
    auto p = bufs->make(plain(d));
    if (want == p.get_desc()) return p;
    auto m = bufs->make(want);
    dnnl::reorder re(p, m);
    if (perRun) prims.push_back({re, {{DNNL_ARG_FROM, p}, {DNNL_ARG_TO, m}}});
    else re.execute(strm(), p, m), strm().wait();
    return m;
  };
  if (c.pass == 0) {
    dnnl::post_ops ops;
    memory::dims ch{1, c.oc, 1, 1};
    if (c.bn) ops.append_binary(dnnl::algorithm::binary_mul, plain(ch)), ops.append_binary(dnnl::algorithm::binary_add, plain(ch));
    if (c.sum) ops.append_sum();
    if (c.relu) ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    auto kind = dnnl::prop_kind::forward_inference;
    auto pd = c.bias ? dnnl::convolution_forward::primitive_desc(eng(), kind, algo, anyOf(x), anyOf(w), plain({c.oc}),
                                                                 anyOf(y), st, dil, pd_, pd_, attr)
                     : dnnl::convolution_forward::primitive_desc(eng(), kind, algo, anyOf(x), anyOf(w), anyOf(y), st,
                                                                 dil, pd_, pd_, attr);
    impl = pd.impl_info_str();
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, in(pd.src_desc(), x, c.plainSrc)},
                                         {DNNL_ARG_WEIGHTS, in(pd.weights_desc(), w, false)},
                                         {DNNL_ARG_DST, bufs->make(pd.dst_desc())}};
    if (c.bias) args[DNNL_ARG_BIAS] = bufs->make(plain({c.oc}));
    if (c.bn) {
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = bufs->make(plain(ch));
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = bufs->make(plain(ch));
    }
    prims.push_back({dnnl::convolution_forward(pd), args});
  } else {
    auto hint = dnnl::convolution_forward::primitive_desc(eng(), dnnl::prop_kind::forward_training, algo, anyOf(x),
                                                          anyOf(w), anyOf(y), st, dil, pd_, pd_);
    if (c.pass == 1) {
      dnnl::convolution_backward_data::primitive_desc pd(eng(), algo, anyOf(x), anyOf(w), anyOf(y), st, dil, pd_, pd_, hint);
      impl = pd.impl_info_str();
      std::unordered_map<int, memory> args{{DNNL_ARG_DIFF_DST, in(pd.diff_dst_desc(), y, true)},
                                           {DNNL_ARG_WEIGHTS, in(pd.weights_desc(), w, true)}};
      auto out = bufs->make(pd.diff_src_desc());
      args[DNNL_ARG_DIFF_SRC] = out;
      prims.push_back({dnnl::convolution_backward_data(pd), args});
      if (out.get_desc() != plain(x)) {
        auto p = bufs->make(plain(x));
        prims.push_back({dnnl::reorder(out, p), {{DNNL_ARG_FROM, out}, {DNNL_ARG_TO, p}}});
      }
    } else {
      dnnl::convolution_backward_weights::primitive_desc pd(eng(), algo, anyOf(x), anyOf(w), anyOf(y), st, dil, pd_, pd_,
                                                            hint);
      impl = pd.impl_info_str();
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, in(pd.src_desc(), x, true)},
                                           {DNNL_ARG_DIFF_DST, in(pd.diff_dst_desc(), y, true)}};
      auto out = bufs->make(pd.diff_weights_desc());
      args[DNNL_ARG_DIFF_WEIGHTS] = out;
      prims.push_back({dnnl::convolution_backward_weights(pd), args});
      if (out.get_desc() != plain(w)) {
        auto p = bufs->make(plain(w));
        prims.push_back({dnnl::reorder(out, p), {{DNNL_ARG_FROM, out}, {DNNL_ARG_TO, p}}});
      }
    }
  }
  if (prims.size() > 1) impl += " +" + std::to_string(prims.size() - 1) + " reorder(s) per run";
  auto &last = prims.back().second;
  memory out = last.count(DNNL_ARG_TO)            ? last.at(DNNL_ARG_TO)
               : last.count(DNNL_ARG_DST)         ? last.at(DNNL_ARG_DST)
               : last.count(DNNL_ARG_DIFF_SRC)    ? last.at(DNNL_ARG_DIFF_SRC)
                                                  : last.at(DNNL_ARG_DIFF_WEIGHTS);
  return {impl, [prims] {
            for (auto &[p, a] : prims) p.execute(strm(), a);
            strm().wait();
          },
          bufs, out};
}

struct Case {
  std::string name;  // workload.layer[.pass]
  double flops;
  bool isMatmul;
  MatmulCase mm;
  ConvCase conv;
};

Case mmCase(const std::string &name, MatmulCase c) {
  return {name, 2.0 * c.batch * c.heads * c.m * c.k * c.n, true, c, {}};
}
Case convCase(const std::string &name, ConvCase c) {
  return {name, 2.0 * c.n * c.oc * c.oh() * c.ow() * c.ic * c.kh * c.kw, false, {}, c};
}

std::vector<Case> cases() {
  std::vector<Case> v;
  // MLP 784-512-512-10, batch 64. Inference: GemmFused (torch's Gemm, transB=1: a strided B, never packed),
  // bias and ReLU as post-ops. Training: GemmGrad products (dX = dY W: plain B; dW = dY^T X: X packed per run
  // when it has >= 512 rows, popart's packsB).
  v.push_back(mmCase("mlp.fc1", {1, 1, 64, 784, 512, false, true, true, 1, 0}));
  v.push_back(mmCase("mlp.fc2", {1, 1, 64, 512, 512, false, true, true, 1, 0}));
  v.push_back(mmCase("mlp.fc3", {1, 1, 64, 512, 10, false, true, true, 0, 0}));
  v.push_back(mmCase("mlp.fc1.dW", {1, 1, 512, 64, 784, true, false, false, 0, 2}));
  v.push_back(mmCase("mlp.fc2.dX", {1, 1, 64, 512, 512, false, false, false, 0, 0}));
  v.push_back(mmCase("mlp.fc2.dW", {1, 1, 512, 64, 512, true, false, false, 0, 2}));
  v.push_back(mmCase("mlp.fc3.dX", {1, 1, 64, 10, 512, false, false, false, 0, 0}));
  v.push_back(mmCase("mlp.fc3.dW", {1, 1, 10, 64, 512, true, false, false, 0, 0}));
  // MNIST CNN, batch 32: ConvFused (bias + ReLU), output left in oneDNN's layout for MaxPool; conv1 reads the
  // plain graph input. Training: backward data (conv2) and weights (both), plain tensors at the boundaries.
  v.push_back(convCase("cnn.conv1", {32, 1, 28, 28, 32, 3, 3, 1, 0, 0, true, false, false, true, true}));
  v.push_back(convCase("cnn.conv2", {32, 32, 13, 13, 64, 3, 3, 1, 0, 0, true, false, false, true, false}));
  v.push_back(convCase("cnn.conv2.dX", {32, 32, 13, 13, 64, 3, 3, 1, 0, 1}));
  v.push_back(convCase("cnn.conv1.dW", {32, 1, 28, 28, 32, 3, 3, 1, 0, 2}));
  v.push_back(convCase("cnn.conv2.dW", {32, 32, 13, 13, 64, 3, 3, 1, 0, 2}));
  // CNN's dense layers (GemmFused 1600-128 + ReLU, Gemm 128-10).
  v.push_back(mmCase("cnn.fc1", {1, 1, 32, 1600, 128, false, true, true, 1, 0}));
  // ResNet-18, batch 8, 224x224: 20 ConvFused with the folded BatchNormalization as binary mul/add post-ops,
  // the residual as a sum post-op and ReLU; activations in oneDNN's layouts, weights packed once.
  // name suffix xN: the number of convolutions of that shape and post-ops in the network.
  auto rn = [&](const std::string &name, int64_t ic, int64_t hw, int64_t oc, int64_t k, int64_t s, bool sum, bool relu,
                bool plainSrc = false) {
    v.push_back(convCase("resnet18." + name, {8, ic, hw, hw, oc, k, k, s, k / 2, 0, false, true, sum, relu, plainSrc}));
  };
  rn("conv1.x1", 3, 224, 64, 7, 2, false, true, true);
  rn("l1.x2", 64, 56, 64, 3, 1, false, true);
  rn("l1.sum.x2", 64, 56, 64, 3, 1, true, true);
  rn("l2.s2.x1", 64, 56, 128, 3, 2, false, true);
  rn("l2.ds.x1", 64, 56, 128, 1, 2, false, false);
  rn("l2.x1", 128, 28, 128, 3, 1, false, true);
  rn("l2.sum.x2", 128, 28, 128, 3, 1, true, true);
  rn("l3.s2.x1", 128, 28, 256, 3, 2, false, true);
  rn("l3.ds.x1", 128, 28, 256, 1, 2, false, false);
  rn("l3.x1", 256, 14, 256, 3, 1, false, true);
  rn("l3.sum.x2", 256, 14, 256, 3, 1, true, true);
  rn("l4.s2.x1", 256, 14, 512, 3, 2, false, true);
  rn("l4.ds.x1", 256, 14, 512, 1, 2, false, false);
  rn("l4.x1", 512, 7, 512, 3, 1, false, true);
  rn("l4.sum.x2", 512, 7, 512, 3, 1, true, true);
  // BERT-base encoder layer, 4 x 128 tokens. Inference: GemmFused (MatMul with a plain [in, out] weight,
  // packed once), bias (+ erf GELU) post-ops; attention: 4-D batched MatMuls [4, 12, 128, 64].
  // Training forward: MatMul without post-ops, B packed per run (weights change every step); backward:
  // dX = dY W^T (strided B, not packed), dW = X^T dY (dY packed per run).
  v.push_back(mmCase("bert.qkvo.x4", {1, 1, 512, 768, 768, false, false, true, 0, 1}));
  v.push_back(mmCase("bert.ffn_in", {1, 1, 512, 768, 3072, false, false, true, 2, 1}));
  v.push_back(mmCase("bert.ffn_out", {1, 1, 512, 3072, 768, false, false, true, 0, 1}));
  v.push_back(mmCase("bert.scores", {4, 12, 128, 64, 128, false, false, false, 0, 0}));
  v.push_back(mmCase("bert.context", {4, 12, 128, 128, 64, false, false, false, 0, 0}));
  v.push_back(mmCase("bert.train.qkvo.x4", {1, 1, 512, 768, 768, false, false, false, 0, 2}));
  v.push_back(mmCase("bert.train.ffn_in", {1, 1, 512, 768, 3072, false, false, false, 0, 2}));
  v.push_back(mmCase("bert.train.ffn_out", {1, 1, 512, 3072, 768, false, false, false, 0, 2}));
  v.push_back(mmCase("bert.qkvo.dX.x4", {1, 1, 512, 768, 768, false, true, false, 0, 0}));
  v.push_back(mmCase("bert.ffn_in.dX", {1, 1, 512, 3072, 768, false, true, false, 0, 0}));
  v.push_back(mmCase("bert.ffn_out.dX", {1, 1, 512, 768, 3072, false, true, false, 0, 0}));
  v.push_back(mmCase("bert.qkvo.dW.x4", {1, 1, 768, 512, 768, true, false, false, 0, 2}));
  v.push_back(mmCase("bert.ffn_in.dW", {1, 1, 768, 512, 3072, true, false, false, 0, 2}));
  v.push_back(mmCase("bert.ffn_out.dW", {1, 1, 3072, 512, 768, true, false, false, 0, 2}));
  return v;
}

/// Sum of the elements of `m` (after one run: blocked layouts hold the same values in another order).
double checksum(const memory &m) {
  const float *p = static_cast<const float *>(m.get_data_handle());
  double s = 0;
  for (size_t i = 0, n = m.get_desc().get_size() / sizeof(float); i < n; ++i) s += p[i];
  return s;
}

/// Median and minimum wall time per iteration and CPU time per iteration of `run` over about `budget` seconds.
void timeIt(const std::function<void()> &run, double budget, double &median, double &best, double &cpu, int &iters) {
  for (int i = 0; i < 3; ++i) run();  // warm up (first-run JIT, page faults)
  double t0 = now();
  run();
  double one = std::max(now() - t0, 1e-6);
  int perSample = std::max(1, static_cast<int>(2e-3 / one));  // samples of >= 2 ms each
  std::vector<double> samples;
  double c0 = cpuNow(), start = now();
  iters = 0;
  while ((now() - start < budget || samples.size() < 5) && samples.size() < 2000) {
    double s = now();
    for (int i = 0; i < perSample; ++i) run();
    samples.push_back((now() - s) / perSample);
    iters += perSample;
  }
  cpu = (cpuNow() - c0) / iters;
  std::sort(samples.begin(), samples.end());
  median = samples[samples.size() / 2], best = samples.front();
}

/// fp32 FMA throughput of one thread (12 independent 16-lane FMA chains in registers), GFLOP/s
/// per second of the thread's CPU time (so time the thread spends descheduled does not count).
double fmaPeak() {
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  auto init = [](int i) { return _mm512_set1_ps(0.001f * static_cast<float>(i)); };  // distinct chains
  __m512 c0 = init(0), c1 = init(1), c2 = init(2), c3 = init(3), c4 = init(4), c5 = init(5), c6 = init(6),
         c7 = init(7), c8 = init(8), c9 = init(9), c10 = init(10), c11 = init(11);
  const long n = 50000000;
  auto threadCpu = [] {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
  };
  double t0 = threadCpu(), w0 = now();
  for (long it = 0; it < n; ++it) {
#define KB_FMA(c) c = _mm512_fmadd_ps(c, a, b);
    KB_FMA(c0) KB_FMA(c1) KB_FMA(c2) KB_FMA(c3) KB_FMA(c4) KB_FMA(c5)
    KB_FMA(c6) KB_FMA(c7) KB_FMA(c8) KB_FMA(c9) KB_FMA(c10) KB_FMA(c11)
#undef KB_FMA
  }
  double t = threadCpu() - t0;
  if (std::getenv("KB_PEAK_WALL")) t = now() - w0;
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                           _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  if (lanes[0] == 12345.f) std::puts("");
  return 2.0 * 16 * 12 * n / t / 1e9;
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1;
  double budget = 0.3;
  std::string filter;
  bool list = false, peak = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--time" && i + 1 < argc) budget = std::atof(argv[++i]);
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--list") list = true;
    else if (a == "--peak") peak = true;
    else {
      std::fprintf(stderr, "usage: %s --threads N [--time S] [--filter SUBSTRING] [--list] [--peak]\n", argv[0]);
      return 2;
    }
  }
  if (peak) {
    std::vector<double> r(threads);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) ts.emplace_back([&r, t] { r[t] = fmaPeak(); });
    for (auto &t : ts) t.join();
    double sum = 0;
    for (double x : r) sum += x;
    std::printf("{\"peak_gflops\": %.1f, \"threads\": %d}\n", sum, threads);
    return 0;
  }
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
  omp_set_num_threads(threads);
#endif
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
#endif
#ifdef KB_WITH_MKL
  mkl_set_num_threads(threads);
#endif
  auto v = dnnl_version();
  std::string lib = "onednn-" + std::to_string(v->major) + "." + std::to_string(v->minor);
  for (const auto &c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    if (list) {
      std::printf("%s %.3f GFLOP\n", c.name.c_str(), c.flops / 1e9);
      continue;
    }
    std::vector<std::pair<std::string, Runnable>> backends;
    backends.emplace_back(lib, c.isMatmul ? dnnlMatmul(c.mm) : dnnlConv(c.conv));
#ifdef KB_WITH_MKL
    if (c.isMatmul) backends.emplace_back("mkl-" + std::to_string(__INTEL_MKL__), mklGemm(c.mm));
#endif
    // Interleave the backends of this case: two alternating halves each.
    std::vector<double> med(backends.size(), 1e30), best(backends.size(), 1e30), cpu(backends.size(), 1e30);
    std::vector<int> iters(backends.size(), 0);
    std::vector<double> sums;
    int postOps = c.isMatmul ? (c.mm.bias || c.mm.act) : 1;
    for (auto &b : backends) {
      b.second.run();
      sums.push_back(checksum(b.second.out));
    }
    for (int half = 0; half < 2; ++half)
      for (size_t j = 0; j < backends.size(); ++j) {
        size_t b = half ? backends.size() - 1 - j : j;
        double m, bs, cp;
        int it;
        timeIt(backends[b].second.run, budget / 2, m, bs, cp, it);
        med[b] = std::min(med[b], m), best[b] = std::min(best[b], bs), cpu[b] = std::min(cpu[b], cp);
        iters[b] += it;
      }
    for (size_t b = 0; b < backends.size(); ++b)
      std::printf("{\"case\": \"%s\", \"backend\": \"%s\", \"threads\": %d, \"gflop\": %.6f, \"median_ms\": %.6f, "
                  "\"min_ms\": %.6f, \"cpu_ms\": %.6f, \"iters\": %d, \"checksum\": %.10g, \"postops\": %d, \"impl\": \"%s\"}\n",
                  c.name.c_str(), backends[b].first.c_str(), threads, c.flops / 1e9, med[b] * 1e3, best[b] * 1e3,
                  cpu[b] * 1e3, iters[b], sums[b], postOps, backends[b].second.impl.c_str());
    std::fflush(stdout);
  }
  return 0;
}
