// LossScaleUpdate (ai.graphcore 1), the step of automatic loss scaling that
// picks the next loss-scale update factor. Input 0: the factor f, one FLOAT or
// FLOAT16 value (shape [] or [1]); inputs 1..k: gradient statistics, each
// [count below, count above] the histogram level (a Histogram with one level
// gives exactly this), INT32, UINT32, FLOAT or FLOAT16. With p = sum of the
// upper counts / sum of all counts: f' = f / 2 if p > thresholdUpperCountProportion
// (default 1e-7) else f * 2 (also when every count is 0). The output has the
// type `updateFactorDType` (an ONNX element type, default: input 0's). No gradient.
#include "ops/loss_scale_update.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {

void LossScaleUpdateOp::setup() {
  const int n = input->maxIndex();
  if (n < 2)
    throw error("LossScaleUpdate needs the update factor (input 0) and at least one gradient statistics input, "
                "got {} input(s)", n);
  for (InIndex i = 0; i < n; ++i)
    if (!hasInput(i)) throw error("input {} is absent; LossScaleUpdate needs every input", i);
  const TensorInfo &f = inInfo(0);
  if (f.nelms() != 1 || f.rank() > 1)
    throw error("update factor (input 0, '{}') is {}, expected one value of shape [] or [1]", inId(0), f.toString());
  for (InIndex i = 1; i < n; ++i) {
    const TensorInfo &s = inInfo(i);
    const DataType t = s.dataType();
    const bool typeOk = t == DataType::INT32 || t == DataType::UINT32 || t == DataType::FLOAT || t == DataType::FLOAT16;
    if (!typeOk || s.shape() != Shape{2})
      throw error("gradient statistics input {} ('{}') is {}, expected [count below, count above] of shape [2] "
                  "and type INT32, UINT32, FLOAT or FLOAT16", i, inId(i), s.toString());
  }
  DataType out = f.dataType();
  if (attributes().hasAttribute("updateFactorDType")) {
    const int64_t onnx = attr<Attributes::Int>("updateFactorDType");
    out = fromOnnxDataType(static_cast<int32_t>(onnx));
    if (out != DataType::FLOAT && out != DataType::FLOAT16)
      throw error("attribute 'updateFactorDType' is {} ({}), expected 1 (FLOAT) or 10 (FLOAT16)", onnx, toString(out));
  }
  threshold_ = attr<Attributes::Float>("thresholdUpperCountProportion", 1e-7f);
  if (!(threshold_ >= 0 && threshold_ <= 1))
    throw error("attribute 'thresholdUpperCountProportion' is {}, expected a proportion in [0, 1]", threshold_);
  outInfo(0) = TensorInfo(out, f.shape());
}

POPART_REGISTER_OP(LossScaleUpdateOp, graphcoreOp("LossScaleUpdate", {1}), {DataType::FLOAT, DataType::FLOAT16});
} // namespace popart
