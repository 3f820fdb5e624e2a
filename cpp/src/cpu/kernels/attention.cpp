// Attention kernel. K' / V' (past then new keys, [B, hkv, t, size]) are
// written to present_key / present_value, or to scratch made in grow when those
// outputs are absent; then every (batch, query head, query row) runs in
// parallel: scores over the t keys (double, into its row of a scratch matrix),
// softcap, bias (mask, causal, padding), softmax and the weighted sum of V'.
// float16 is read and written through float.
#include "dispatch.hpp"
#include "ops/attention.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <cstring>

namespace popart::cpu {
namespace {

/// Offset of element (b, h, s, 0) of a Q/K/V/Y tensor with `heads` heads of `size`.
int64_t rowOffset(const AttentionDims &a, int64_t b, int64_t h, int64_t s, int64_t heads, int64_t len,
                  int64_t size) {
  return a.rank3 ? (b * len + s) * heads * size + h * size : ((b * heads + h) * len + s) * size;
}

struct AttentionAttrs {
  double scale, softcap;
  bool causal;
  int64_t mode;
};

/// The additive bias of score (b, h, i, j) from attn_mask (broadcast, bool: false = -inf).
template <class T> struct MaskView {
  const T *f = nullptr;
  const bool *m = nullptr;
  int64_t strides[4] = {0, 0, 0, 0}, last = 0;
  double at(const int64_t idx[4]) const {
    if (idx[3] >= last) return -INFINITY;
    int64_t o = 0;
    for (int k = 0; k < 4; ++k) o += idx[k] * strides[k];
    return m ? (m[o] ? 0.0 : -INFINITY) : double(compute_t<T>(f[o]));
  }
};

template <class T> MaskView<T> maskView(const popx::TensorView &mask) {
  MaskView<T> v;
  if (!mask.raw()) return v;
  if (mask.dtype() == DataType::BOOL) v.m = mask.data<bool>();
  else v.f = mask.data<T>();
  const Shape &s = mask.shape();
  int64_t stride = 1;
  for (int k = 3, d = static_cast<int>(s.size()) - 1; d >= 0; --k, --d) {
    v.strides[k] = s[d] == 1 && k < 3 ? 0 : stride;
    stride *= s[d];
  }
  v.last = s.back();
  return v;
}

/// present[b, h, t] = past rows then the new rows of `x` (Q/K/V layout).
template <class T>
void writePresent(const AttentionDims &a, const T *past, const T *x, T *present, int64_t size) {
  const int64_t t = a.total();
  popx::Opx::parallelFor(a.b * a.hkv * t, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t b = p / (a.hkv * t), h = p / t % a.hkv, s = p % t;
      const T *src = s < a.past ? past + ((b * a.hkv + h) * a.past + s) * size
                                : x + rowOffset(a, b, h, s - a.past, a.hkv, a.skv, size);
      std::memcpy(present + p * size, src, static_cast<size_t>(size) * sizeof(T));
    }
  }, 64);
}

template <class T>
void attentionRow(const AttentionDims &a, const AttentionAttrs &at, const T *q, const T *kp, const T *vp,
                  const MaskView<T> &mask, const int64_t *nonpad, double *s, T *qkOut, T *y, int64_t row) {
  const int64_t t = a.total(), b = row / (a.hq * a.sq), h = row / a.sq % a.hq, i = row % a.sq;
  const int64_t kvh = h / (a.hq / a.hkv);
  const T *qr = q + rowOffset(a, b, h, i, a.hq, a.sq, a.d);
  double mx = -INFINITY;
  for (int64_t j = 0; j < t; ++j) {
    const T *kr = kp + ((b * a.hkv + kvh) * t + j) * a.d;
    double dot = 0;
    for (int64_t k = 0; k < a.d; ++k) dot += double(compute_t<T>(qr[k])) * double(compute_t<T>(kr[k]));
    double v = dot * at.scale;
    if (qkOut && at.mode == 0) qkOut[j] = T(static_cast<compute_t<T>>(v));
    if (at.softcap > 0) v = at.softcap * std::tanh(v / at.softcap);
    if (qkOut && at.mode == 1) qkOut[j] = T(static_cast<compute_t<T>>(v));
    const int64_t idx[4] = {b, h, i, j};
    if (mask.f || mask.m) v += mask.at(idx);
    if (at.causal && j > i + a.past) v = -INFINITY;
    if (nonpad && j >= nonpad[b]) v = -INFINITY;
    if (qkOut && at.mode == 2) qkOut[j] = T(static_cast<compute_t<T>>(v));
    s[j] = v;
    mx = std::fmax(mx, v);
  }
  double sum = 0;
  for (int64_t j = 0; j < t; ++j) sum += (s[j] = std::exp(s[j] - mx));
  for (int64_t j = 0; j < t; ++j) s[j] /= sum;
  if (qkOut && at.mode == 3)
    for (int64_t j = 0; j < t; ++j) qkOut[j] = T(static_cast<compute_t<T>>(s[j]));
  T *yr = y + rowOffset(a, b, h, i, a.hq, a.sq, a.dv);
  for (int64_t k = 0; k < a.dv; ++k) {
    double acc = 0;
    for (int64_t j = 0; j < t; ++j) acc += s[j] * double(compute_t<T>(vp[((b * a.hkv + kvh) * t + j) * a.dv + k]));
    yr[k] = T(static_cast<compute_t<T>>(acc));
  }
}

class AttentionOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const AttentionDims a = getOp<AttentionOp>().dims();
    const Op &op = *op_p;
    const AttentionAttrs at{op.attr<Attributes::Float>("scale", float(1 / std::sqrt(double(a.d)))),
                            op.attr<Attributes::Float>("softcap", 0.0f), op.attr<Attributes::Int>("is_causal", 0) != 0,
                            op.attr<Attributes::Int>("qk_matmul_output_mode", 0)};
    const TensorInfo kInfo(inInfo(0).dataType(), {a.b, a.hkv, a.total(), a.d});
    const TensorInfo vInfo(inInfo(0).dataType(), {a.b, a.hkv, a.total(), a.dv});
    auto q = getInTensor(0), k = getInTensor(1), v = getInTensor(2), y = getOutTensor(0);
    auto none = popx::TensorView();
    auto mask = hasInput(3) ? getInTensor(3) : none, pastK = hasInput(4) ? getInTensor(4) : none;
    auto pastV = hasInput(5) ? getInTensor(5) : none, nonpad = hasInput(6) ? getInTensor(6) : none;
    auto kp = hasOutput(1) ? getOutTensor(1) : createTensor(kInfo);
    auto vp = hasOutput(2) ? getOutTensor(2) : createTensor(vInfo);
    auto qk = hasOutput(3) ? getOutTensor(3) : none;
    auto scores = createTensor(TensorInfo(DataType::DOUBLE, {a.b * a.hq * a.sq * a.total()}));
    if (nonpad.raw() && nonpad.dtype() != DataType::INT64)
      throw error("Attention: input 6 (nonpad_kv_seqlen) must be INT64, got {}", toString(nonpad.dtype()));
    dispatchFloat(q.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const T *pk = pastK.raw() ? pastK.data<T>() : nullptr, *pv = pastV.raw() ? pastV.data<T>() : nullptr;
        writePresent(a, pk, k.data<T>(), kp.data<T>(), a.d);
        writePresent(a, pv, v.data<T>(), vp.data<T>(), a.dv);
        const MaskView<T> mv = maskView<T>(mask);
        const int64_t *np = nonpad.raw() ? nonpad.data<int64_t>() : nullptr, t = a.total();
        popx::Opx::parallelFor(a.b * a.hq * a.sq, [&](int64_t begin, int64_t end) {
          for (int64_t row = begin; row < end; ++row)
            attentionRow(a, at, q.data<T>(), kp.data<T>(), vp.data<T>(), mv, np, scores.data<double>() + row * t,
                         qk.raw() ? qk.data<T>() + row * t : nullptr, y.data<T>(), row);
        }, 1);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<AttentionOpx> attentionOpxCreator(onnxOp("Attention"));
} // namespace popart::cpu
