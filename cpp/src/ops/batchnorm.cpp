// BatchNormalization (ai.onnx 6, 7, 9, 14, 15), inference: Y = scale * (X - mean) / sqrt(var + epsilon) + B,
// per channel (per [C, spatial...] element with spatial=0 before opset 9). Training outputs are rejected.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class BatchNormOp final : public Op {  // inputs: X, scale, B, mean, var
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const auto &x = inInfo(0);
    if (x.rank() < 2) throw error("BatchNormalization input X must have rank >= 2, got {}", x.shape());
    if (opid.version >= 14 && attr<Attributes::Int>("training_mode", 0) != 0)
      throw error("attribute training_mode=1 is not supported: BatchNormalization runs in inference mode");
    if (output->n() > 1)
      throw error("BatchNormalization outputs beyond Y (mean, var, saved statistics) exist only in training mode, "
                  "which is not supported");
    int64_t spatial = opid.version < 9 ? attr<Attributes::Int>("spatial", 1) : 1;
    Shape param = spatial ? Shape{x.dim(1)} : Shape(x.shape().begin() + 1, x.shape().end());
    static const char *names[] = {"scale", "B", "mean", "var"};
    for (int i = 1; i <= 4; ++i) {
      if (!hasInput(i)) throw error("input {} ({}) is required", i, names[i - 1]);
      const auto &p = inInfo(i);
      bool ok = p.shape() == param || (!spatial && p.nelms() == TensorInfo(x.dataType(), param).nelms());
      if (!ok) throw error("input {} {} must have shape {}", names[i - 1], p.shape(), param);
      if (p.dataType() != x.dataType() && opid.version < 15)
        throw error("input {} has type {}, X has {}", names[i - 1], p.data_type(), x.data_type());
    }
    outInfo(0) = x;
  }
};

} // namespace
POPART_REGISTER_OP(BatchNormOp, onnxOp("BatchNormalization", {6, 7, 9, 14, 15}), floatTypes());
} // namespace popart
