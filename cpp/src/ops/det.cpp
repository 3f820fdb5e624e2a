// Det (ai.onnx 11, 22): y[...] = det(x[..., :, :]) for square matrices in the
// last two dimensions (float types). No gradient (inference only).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class DetOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const Shape &s = inShape(0);
    if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
      throw error("input 0 must be [*, M, M] (square matrices in the last two dimensions), got {}",
                  inInfo(0).shapeString());
    outInfo(0) = TensorInfo(inInfo(0).dataType(), Shape(s.begin(), s.end() - 2));
  }
};

} // namespace
POPART_REGISTER_OP(DetOp, onnxOp("Det", {11, 22}), floatTypes());
} // namespace popart
