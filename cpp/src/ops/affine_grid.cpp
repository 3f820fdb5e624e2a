// AffineGrid (ai.onnx 20): for size = [N, C, H, W] (or [N, C, D, H, W]; input
// 1, compile-time ints) and theta [N, 2, 3] (or [N, 3, 4]):
//   grid[n, h, w] = theta[n] @ (x_w, y_h, 1)   (3-D: (x_w, y_h, z_d, 1))
// with base coordinates c_i = -1 + 2 i / (L - 1) when align_corners, else
// (2 i + 1) / L - 1 (0 when L = 1), so grid is [N, H, W, 2] ([N, D, H, W, 3]).
// Gradient: dtheta[n] = sum over locations of dgrid (x) base (AffineGridGrad).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class AffineGridGradOp final : public Op {  // input: dGrid
public:
  explicit AffineGridGradOp(const Op &fwd) : Op(internalOp("AffineGridGrad"), fwd.settings), theta_(fwd.inInfo(0)) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = theta_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> in{{0, 0, GradOpInType::GradOut}};
    return in;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }

private:
  TensorInfo theta_;
};

class AffineGridOp final : public Op {  // inputs: theta, size
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {1}; }
  void setup() override {
    const std::vector<int64_t> size = inConstInts(1);
    const Shape &t = inShape(0);
    const int64_t nd = static_cast<int64_t>(size.size()) - 2;
    if (nd != 2 && nd != 3) throw error("input 1 (size) must have 4 or 5 values, got {}", size.size());
    if (t != Shape{size[0], nd, nd + 1})
      throw error("input 0 (theta) must be [{}, {}, {}] for size {}, got {}", size[0], nd, nd + 1, size,
                  inInfo(0).shapeString());
    Shape out{size[0]};
    out.insert(out.end(), size.begin() + 2, size.end());
    out.push_back(nd);
    for (int64_t d : out)
      if (d < 0) throw error("input 1 (size) {} has a negative value", size);
    outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<AffineGridGradOp>(*this); }
};

} // namespace
POPART_REGISTER_OP(AffineGridOp, onnxOp("AffineGrid", {20}), floatTypes());
POPART_REGISTER_OP(AffineGridGradOp, internalOp("AffineGridGrad"));
} // namespace popart
