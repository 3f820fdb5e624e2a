// Expand and Tile as strided copies built once at grow(): Expand reads broadcast
// dims with stride 0; Tile writes the output viewed as [r0, d0, r1, d1, ...], reading
// the input with strides [0, s0, 0, s1, ...], so inner runs stay memcpy-able.
// Gradients: the transposed gathers, x index 0 (Expand) or o mod d (Tile) per axis.
#include "axis_transpose.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"

namespace popart::cpu {
namespace {

StridedCopy expandCopy(const Shape &in, const Shape &out, int64_t elem) {
  const size_t rank = out.size(), pad = rank - in.size();
  std::vector<int64_t> src(rank, 0);
  auto inStrides = rowMajorStrides(in);
  for (size_t d = pad; d < rank; ++d) src[d] = in[d - pad] == 1 ? 0 : inStrides[d - pad];
  return StridedCopy(out, src, rowMajorStrides(out), 0, 0, elem);
}

StridedCopy tileCopy(const Shape &in, const Shape &out, int64_t elem) {
  Shape view;
  std::vector<int64_t> src, dst;
  auto inStrides = rowMajorStrides(in), outStrides = rowMajorStrides(out);
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t reps = in[d] == 0 ? 0 : out[d] / in[d];
    view.insert(view.end(), {reps, in[d]});
    src.insert(src.end(), {0, inStrides[d]});
    dst.insert(dst.end(), {in[d] * outStrides[d], outStrides[d]});
  }
  return StridedCopy(view, src, dst, 0, 0, elem);
}

class ExpandTileOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0), y = getOutTensor(0);
    if (y.nelms() == 0) return;
    const int64_t elem = dataTypeSize(x.dtype());
    StridedCopy copy = op_p->opid.type == "Tile" ? tileCopy(inShape(0), outShape(0), elem)
                                                 : expandCopy(inShape(0), outShape(0), elem);
    prog.add([copy, x, y] { copy.run(x.raw(), y.raw()); });
  }
};

/// dy (rank R) back to x padded to rank R: per axis, output o read x index
/// 0 (a broadcast dim), o mod d (a tiled dim) or o.
class ExpandTileGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Shape &dy = inShape(0), &x = outShape(0);
    const size_t lead = dy.size() - x.size();
    const bool tile = op_p->opid.type == "TileGrad";
    std::vector<AxisTranspose> axes;
    for (size_t a = 0; a < dy.size(); ++a) {
      const int64_t d = a < lead ? 1 : x[a - lead];
      std::vector<int64_t> idx(dy[a]);
      for (int64_t o = 0; o < dy[a]; ++o) idx[o] = tile ? o % d : d == 1 ? 0 : o;
      axes.emplace_back(static_cast<int>(a), d, dy[a], 1, idx);
    }
    growAxisTranspose(*this, prog, std::move(axes));
  }
};

} // namespace
static popx::OpxCreator<ExpandTileGradOpx> expandTileGradOpxCreator(
    std::vector<OperatorIdentifier>{internalOp("ExpandGrad"), internalOp("TileGrad")});
static popx::OpxCreator<ExpandTileOpx> expandTileOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("Expand"), onnxOp("Tile")});
} // namespace popart::cpu
