// Tile (ai.onnx 1: scalar `tiles` and `axis` inputs; 6, 13: `repeats`, one per dim):
// y has dims d_i * r_i and y[i] = x[i mod d]. Repeats must be constants.
// Gradient (TileGrad): dx[i] = sum over the tiles t of dy[i + t * d].
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

/// dx = dy summed over the tiles (input 0: dY; repeats get no gradient).
class TileGradOp final : public ShapeGradOp {
public:
  explicit TileGradOp(const Op &fwd) : ShapeGradOp(internalOp("TileGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class TileOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override {
    if (opid.version < 6) return {1, 2};
    return {1};
  }
  void setup() override {
    const int64_t rank = inRank(0);
    std::vector<int64_t> repeats(static_cast<size_t>(rank), 1);
    if (opid.version < 6) {
      auto tiles = inConstInts(1), axis = inConstInts(2);
      if (tiles.size() != 1 || axis.size() != 1) throw error("tiles and axis must be scalars (Tile-1)");
      repeats[shapeutil::normaliseAxis(axis[0], rank)] = tiles[0];
    } else {
      repeats = inConstInts(1);
      if (static_cast<int64_t>(repeats.size()) != rank)
        throw error("repeats has {} values, the input has rank {}", repeats.size(), rank);
    }
    Shape out = inShape(0);
    for (int64_t d = 0; d < rank; ++d) {
      if (repeats[d] < 0) throw error("repeats {} has a negative value", repeats);
      out[d] *= repeats[d];
    }
    outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<TileGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(TileOp, onnxOp("Tile", {1, 6, 13}), shapeutil::copyableTypes());
POPART_REGISTER_OP(TileGradOp, internalOp("TileGrad"));
} // namespace popart
