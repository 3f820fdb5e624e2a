// ai.onnx.preview.training (1) optimisers as pure functions. Inputs: R (learning rate, scalar), T (update
// count, INT64 scalar), then n tensors each of X, G and the state; outputs the new X and state, grouped
// alike (X_new..., then each state's new values). With g = norm_coefficient * x + G:
//   Adagrad:  h' = h + g^2; x' = x - R / (1 + T decay_factor) * g / (sqrt(h') + epsilon)
//   Adam:     v' = alpha v + (1 - alpha) g; h' = beta h + (1 - beta) g^2;
//             x' = (1 - norm_coefficient_post) (x - R' v' / (sqrt(h') + epsilon)),
//             R' = R sqrt(1 - beta^T) / (1 - alpha^T) when T > 0, else R
//   Momentum: v' = alpha v + b g (b = beta when T > 0, else 1); x' = x - R v' (standard) or
//             x - R (g + alpha v') (nesterov)
// Tensors of one group share a shape; all share one floating type. No gradients.
#include "ops/preview_training.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class PreviewTrainingOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int group = previewTrainingGroup(opid.type), ins = input->maxIndex(), outs = group - 1;
    if (ins < 2 + group || (ins - 2) % group != 0 || input->n() != ins)
      throw error("expects R, T and {} tensors per variable (X, G, state), got {} inputs", group, ins);
    const int n = (ins - 2) / group;
    if (output->maxIndex() > n * outs)
      throw error("has {} outputs, at most {} for {} variables", output->maxIndex(), n * outs, n);
    const DataType r = inInfo(0).dataType(), x = inInfo(2).dataType();
    if (x != DataType::FLOAT && x != DataType::FLOAT16 && x != DataType::DOUBLE)
      throw error("input 2 (X1) must be FLOAT, FLOAT16 or DOUBLE, got {}", inInfo(2).data_type());
    if (inInfo(0).nelms() != 1 || (r != DataType::FLOAT && r != DataType::DOUBLE))
      throw error("input 0 (R) must be one FLOAT or DOUBLE value, got {} {}", inInfo(0).data_type(), inShape(0));
    if (inInfo(1).nelms() != 1 || inInfo(1).dataType() != DataType::INT64)
      throw error("input 1 (T) must be one INT64 value, got {} {}", inInfo(1).data_type(), inShape(1));
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < group; ++k) {
        const InIndex in = 2 + k * n + i;
        if (inInfo(in).dataType() != x || inShape(in) != inShape(2 + i))
          throw error("input {} must be {} of shape {} (as X{}), got {} {}", in, toString(x), inShape(2 + i), i + 1,
                      inInfo(in).data_type(), inShape(in));
      }
    checkAttributes();
    for (const auto &[o, t] : output->tensorMap()) outInfo(o) = inInfo(2 + o % n);
  }

private:
  void checkAttributes() const {
    if (opid.type != "Momentum") return;
    for (const char *name : {"alpha", "beta", "norm_coefficient"})
      if (!attributes().hasAttribute(name)) throw error("attribute {} is required", name);
    const auto mode = attr<Attributes::String>("mode", "");
    if (mode != "standard" && mode != "nesterov")
      throw error("attribute mode must be 'standard' or 'nesterov', got '{}'", mode);
  }
};

} // namespace
POPART_REGISTER_OP(PreviewTrainingOp, previewTrainingOp("Adagrad"), {DataType::FLOAT, DataType::DOUBLE});
POPART_REGISTER_OP(PreviewTrainingOp, previewTrainingOp("Adam"), {DataType::FLOAT, DataType::DOUBLE});
POPART_REGISTER_OP(PreviewTrainingOp, previewTrainingOp("Momentum"), {DataType::FLOAT, DataType::DOUBLE});
} // namespace popart
