// Range (ai.onnx 11): y[i] = start + i * delta for i < max(ceil((limit - start) /
// delta), 0). start, limit and delta are constant scalars (static output shape).
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <cmath>

namespace popart {
namespace {

bool rangeIsIntegral(DataType t) { return t == DataType::INT16 || t == DataType::INT32 || t == DataType::INT64; }

class RangeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {0, 1, 2}; }
  void setup() override {
    const DataType t = inInfo(0).dataType();
    for (InIndex i : {0, 1, 2}) {
      if (inInfo(i).dataType() != t)
        throw error("input {} has type {}, start has {}", i, inInfo(i).data_type(), inInfo(0).data_type());
      if (inInfo(i).nelms() != 1) throw error("input {} must be a scalar, has shape {}", i, inShape(i));
    }
    int64_t n;
    if (rangeIsIntegral(t)) {
      const int64_t start = inConstInts(0)[0], limit = inConstInts(1)[0], delta = inConstInts(2)[0];
      if (delta == 0) throw error("delta must not be 0");
      const int64_t span = limit - start;
      n = span / delta + ((span % delta != 0) && ((span < 0) == (delta < 0)) ? 1 : 0);
    } else {
      const double start = inConstFloats(0)[0], limit = inConstFloats(1)[0], delta = inConstFloats(2)[0];
      if (delta == 0) throw error("delta must not be 0");
      double count = std::ceil((limit - start) / delta);
      if (!std::isfinite(count))
        throw error("range of start {}, limit {}, delta {} is not finite", start, limit, delta);
      n = static_cast<int64_t>(count);
    }
    outInfo(0) = TensorInfo(t, {std::max<int64_t>(n, 0)});
  }
};

} // namespace
POPART_REGISTER_OP(RangeOp, onnxOp("Range", {11}),
                   {DataType::FLOAT, DataType::DOUBLE, DataType::FLOAT16, DataType::INT16, DataType::INT32,
                    DataType::INT64});
} // namespace popart
