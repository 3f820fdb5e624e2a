// RotaryEmbedding (ai.onnx 23): rotates the first R = rotary_embedding_dim
// (default: head size) features of every head of x ([B, H, S, D], or
// [B, S, H * D] with num_heads) by position-dependent angles:
//   y[a] = cos * x[a] - sin * x[b],  y[b] = sin * x[a] + cos * x[b]
// for the pairs (a, b) = (i, i + R/2) (or (2i, 2i + 1) when interleaved),
// i < R/2, with cos/sin = cos_cache/sin_cache[position_ids[b, s], i] (caches
// [max position, R/2]) or cos_cache/sin_cache[b, s, i] without position_ids.
// Features from R on are copied. No gradient (inference only).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class RotaryEmbeddingOp final : public Op {  // inputs: X, cos_cache, sin_cache, position_ids (optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const Shape &x = inShape(0);
    if (x.size() != 3 && x.size() != 4) throw error("input 0 must be 3-D or 4-D, got {}", inInfo(0).shapeString());
    int64_t heads = x.size() == 4 ? x[1] : attr<Attributes::Int>("num_heads", 0);
    if (heads <= 0 || (x.size() == 3 && x[2] % heads != 0))
      throw error("3-D input 0 {} needs attribute num_heads dividing its hidden size", inInfo(0).shapeString());
    const int64_t b = x[0], s = x.size() == 4 ? x[2] : x[1], d = x.size() == 4 ? x[3] : x[2] / heads;
    const int64_t r = attr<Attributes::Int>("rotary_embedding_dim", 0) ? attr<Attributes::Int>("rotary_embedding_dim") : d;
    if (r > d || r % 2 != 0) throw error("attribute rotary_embedding_dim {} must be even and at most the head size {}", r, d);
    const Shape cache = hasInput(3) ? Shape{inShape(1).empty() ? 0 : inShape(1)[0], r / 2} : Shape{b, s, r / 2};
    for (InIndex i : {1, 2})
      if (inShape(i) != cache || inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} ({}) must be {} {}, got {} {}", i, i == 1 ? "cos_cache" : "sin_cache",
                    toString(inInfo(0).dataType()), TensorInfo(DataType::FLOAT, cache).shapeString(),
                    toString(inInfo(i).dataType()), inInfo(i).shapeString());
    if (hasInput(3) && inShape(3) != Shape{b, s})
      throw error("input 3 (position_ids) must have shape [{}, {}], got {}", b, s, inInfo(3).shapeString());
    outInfo(0) = inInfo(0);
  }
};

} // namespace
POPART_REGISTER_OP(RotaryEmbeddingOp, onnxOp("RotaryEmbedding", {23}), floatTypes());
} // namespace popart
