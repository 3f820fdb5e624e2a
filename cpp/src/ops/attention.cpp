// Attention (ai.onnx 23, 24), per batch b and query head h (key/value head
// h / (hq / hkv), grouped-query attention):
//   K' = concat(past_key, K), V' = concat(past_value, V) along the sequence
//   S = scale * Q K'^T        (scale default 1 / sqrt(head size))
//   S = softcap * tanh(S / softcap) when softcap > 0
//   P = softmax(S + bias) over keys, Y = P V'
// bias = attn_mask (additive float, or bool with false = -inf, broadcast to
// [B, hq, sq, t], shorter last dimension padded as masked) plus, when
// is_causal, -inf above the diagonal shifted by the past length, plus -inf for
// keys at or after nonpad_kv_seqlen[b] (opset 24). 3-D Q/K/V are
// [B, S, heads * size] (q_num_heads / kv_num_heads attributes); present_key /
// present_value are K' / V' as [B, hkv, t, size]; qk_matmul_output is S before
// softcap (mode 0), after softcap (1), with the bias (2) or P (3).
// No gradient (inference only).
#include "ops/attention.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

namespace {

/// heads and head size of a Q/K/V input (4-D: [B, H, S, size]; 3-D: hidden split by `heads`).
std::pair<int64_t, int64_t> headsAndSize(const Op &op, InIndex i, const char *headsAttr) {
  const Shape &s = op.inShape(i);
  if (s.size() == 4) return {s[1], s[3]};
  if (!op.attributes().hasAttribute(headsAttr))
    throw error("3-D inputs need attribute {}", headsAttr);
  const int64_t heads = op.attr<Attributes::Int>(headsAttr);
  if (heads <= 0 || s[2] % heads != 0)
    throw error("input {} hidden size {} is not divisible by attribute {} = {}", i, s[2], headsAttr, heads);
  return {heads, s[2] / heads};
}

void checkOptional(const Op &op, InIndex i, const Shape &want, const char *name) {
  if (op.hasInput(i) && op.inShape(i) != want)
    throw error("input {} ({}) must have shape {}, got {}", i, name, TensorInfo(op.inInfo(0).dataType(), want).shapeString(),
                op.inInfo(i).shapeString());
}

} // namespace

void AttentionOp::setup() {
  const int64_t r = inRank(0);
  if ((r != 3 && r != 4) || inRank(1) != r || inRank(2) != r)
    throw error("Q, K and V must all be 3-D or all 4-D, got {}, {}, {}", inInfo(0).shapeString(),
                inInfo(1).shapeString(), inInfo(2).shapeString());
  for (InIndex i : {1, 2})
    if (inInfo(i).dataType() != inInfo(0).dataType()) throw error("input {} must have Q's type", i);
  AttentionDims a;
  a.rank3 = r == 3;
  a.b = inShape(0)[0];
  a.sq = inShape(0)[r == 4 ? 2 : 1];
  a.skv = inShape(1)[r == 4 ? 2 : 1];
  auto [hq, d] = headsAndSize(*this, 0, "q_num_heads");
  auto [hk, dk] = headsAndSize(*this, 1, "kv_num_heads");
  auto [hv, dv] = headsAndSize(*this, 2, "kv_num_heads");
  a.hq = hq, a.hkv = hk, a.d = d, a.dv = dv;
  if (dk != d || hv != hk || inShape(2)[r == 4 ? 2 : 1] != a.skv || inShape(1)[0] != a.b || inShape(2)[0] != a.b)
    throw error("K {} and V {} do not match Q {} (same batch, K head size = Q's, V length = K's)",
                inInfo(1).shapeString(), inInfo(2).shapeString(), inInfo(0).shapeString());
  if (hk <= 0 || hq % hk != 0) throw error("query heads {} must be a multiple of key/value heads {}", hq, hk);
  if (hasInput(4) != hasInput(5)) throw error("past_key and past_value must be given together");
  a.past = hasInput(4) ? inShape(4).at(2) : 0;
  checkOptional(*this, 4, {a.b, hk, a.past, d}, "past_key");
  checkOptional(*this, 5, {a.b, hk, a.past, dv}, "past_value");
  checkOptional(*this, 6, {a.b}, "nonpad_kv_seqlen");
  if (hasInput(3)) {
    const Shape &m = inShape(3);
    const Shape full{a.b, hq, a.sq, a.total()};
    bool ok = m.size() >= 2 && m.size() <= 4 && m.back() <= a.total();
    for (size_t k = 0; ok && k + 1 < m.size(); ++k) {
      const int64_t f = full[4 - m.size() + k];
      ok = m[k] == f || m[k] == 1;
    }
    if (!ok) throw error("input 3 (attn_mask) {} does not broadcast to [B, q heads, q length, total length] = {}",
                         inInfo(3).shapeString(), TensorInfo(DataType::FLOAT, full).shapeString());
  }
  const int64_t mode = attr<Attributes::Int>("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) throw error("attribute qk_matmul_output_mode must be 0..3, got {}", mode);
  dims_ = a;
  const DataType t = inInfo(0).dataType();
  outInfo(0) = TensorInfo(t, a.rank3 ? Shape{a.b, a.sq, hq * dv} : Shape{a.b, hq, a.sq, dv});
  if (hasOutput(1)) outInfo(1) = TensorInfo(t, {a.b, hk, a.total(), d});
  if (hasOutput(2)) outInfo(2) = TensorInfo(t, {a.b, hk, a.total(), dv});
  if (hasOutput(3)) outInfo(3) = TensorInfo(t, {a.b, hq, a.sq, a.total()});
}

POPART_REGISTER_OP(AttentionOp, onnxOp("Attention", {23, 24}), floatTypes());
} // namespace popart
