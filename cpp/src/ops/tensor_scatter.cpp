// TensorScatter (ai.onnx 24): a KV-cache update. present = past_cache with,
// along `axis` (default -2, not the batch axis 0), the rows of `update`
// written from write_indices[b] (input 2, INT64 [B], default 0) on:
//   present[p..., w[b] + s, ...] = update[p..., s, ...]   (b = p[0])
// mode "linear" requires w[b] + S <= the cache length; "circular" wraps the
// position modulo it. No gradient (inference only).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class TensorScatterOp final : public Op {  // inputs: past_cache, update, write_indices (optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const Shape &c = inShape(0), &u = inShape(1);
    const int64_t r = inRank(0), a0 = attr<Attributes::Int>("axis", -2), a = a0 < 0 ? a0 + r : a0;
    if (a < 1 || a >= r) throw error("attribute axis {} must address a non-batch axis of rank {}", a0, r);
    bool ok = u.size() == c.size() && u[a] <= c[a];
    for (int64_t d = 0; ok && d < r; ++d) ok = d == a || u[d] == c[d];
    if (!ok) throw error("input 1 (update) {} must match past_cache {} except along axis {} (at most as long)",
                         inInfo(1).shapeString(), inInfo(0).shapeString(), a);
    if (inInfo(1).dataType() != inInfo(0).dataType()) throw error("input 1 (update) must have past_cache's type");
    if (hasInput(2) && (inShape(2) != Shape{c[0]} || inInfo(2).dataType() != DataType::INT64))
      throw error("input 2 (write_indices) must be INT64 [{}], got {} {}", c[0], toString(inInfo(2).dataType()),
                  inInfo(2).shapeString());
    const auto mode = attr<Attributes::String>("mode", "linear");
    if (mode != "linear" && mode != "circular") throw error("attribute mode must be linear or circular, got '{}'", mode);
    outInfo(0) = inInfo(0);
  }
};

} // namespace
POPART_REGISTER_OP(TensorScatterOp, onnxOp("TensorScatter", {24}), allTypes());
} // namespace popart
