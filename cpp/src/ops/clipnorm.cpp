// ClipNormScale (internal; one per clip-norm group of the optimizer):
//   (hyper, g_0, g_1, ...) -> scale = maxNorm / max(|g|, maxNorm), |g| = hyper[0] * sqrt(sum_i sum g_i^2),
// a FLOAT scalar the group's var updates multiply their gradients by.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

class ClipNormScaleOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (input->n() < 2) throw error("needs the hyper-parameter tensor and at least one gradient");
    if (inInfo(0).dataType() != DataType::FLOAT) throw error("hyper-parameters must be FLOAT");
    for (const auto &[i, t] : input->tensorMap())
      if (!isFloatingPoint(inInfo(i).dataType()))
        throw error("input {} has type {}, expected a float type", i, inInfo(i).data_type());
    if (attr<Attributes::Float>("maxNorm", 0.0f) <= 0.0f)
      throw error("maxNorm {} must be positive", attr<Attributes::Float>("maxNorm", 0.0f));
    outInfo(0) = TensorInfo(DataType::FLOAT, {});
  }
};

} // namespace
POPART_REGISTER_OP(ClipNormScaleOp, internalOp("ClipNormScale"));
} // namespace popart
