// AttentionOp's resolved geometry, read by its kernel.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Sizes of Attention: batch b, query heads hq, key/value heads hkv, query
/// length sq, new key length skv, past length past (total t = past + skv),
/// head sizes d (Q, K) and dv (V); rank3: Q/K/V are [B, S, heads * size].
struct AttentionDims {
  int64_t b = 0, hq = 0, hkv = 0, sq = 0, skv = 0, past = 0, d = 0, dv = 0;
  bool rank3 = false;
  int64_t total() const { return past + skv; }
};

/// Attention (ai.onnx 23, 24): see attention.cpp.
class AttentionOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  const AttentionDims &dims() const { return dims_; }  // valid after setup()

private:
  AttentionDims dims_;
};

} // namespace popart
