// B-spline ops of ai.graphcore (opset 1), torch_spline_conv semantics; M = degree + 1.
//   SplineBasis(pseudo [E, D], kernel_size [D], is_open_spline [D]; degree 1..3):
//     for spline s in [0, M^D), k_d = (s / M^d) mod M, v_d = pseudo[e, d] *
//     (kernel_size[d] - degree * is_open_spline[d]):
//     basis[e, s] = prod_d B_degree(v_d - floor(v_d), k_d) and
//     weight_index[e, s] = sum_d ((trunc(v_d) + k_d) mod kernel_size[d]) * prod_{d' < d} kernel_size[d'],
//     with B the uniform B-spline pieces (degree 1: 1 - v or v).
//   SplineWeighting(x [E, Cin], weight [K, Cin, Cout], basis [E, S], weight_index [E, S]):
//     y[e, o] = sum_s basis[e, s] * sum_i x[e, i] * weight[weight_index[e, s], i, o].
// Neither has a gradient here.
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

void checkIntType(const Op &op, InIndex i, const char *name) {
  const DataType t = op.inInfo(i).dataType();
  if (t != DataType::INT32 && t != DataType::INT64)
    throw error("{} (input {}) has type {}, expected INT32 or INT64", name, i, toString(t));
}

class SplineBasisOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t degree = attr<Attributes::Int>("degree");
    if (degree < 1 || degree > 3) throw error("attribute 'degree' is {}, expected 1, 2 or 3", degree);
    if (inRank(0) != 2) throw error("pseudo (input 0) must be 2-D [numEdges, numDims], got {}", inShape(0));
    const int64_t dims = inShape(0)[1];
    checkIntType(*this, 1, "kernel_size");
    if (inShape(1) != Shape{dims} || inShape(2) != Shape{dims})
      throw error("kernel_size {} and is_open_spline {} must be 1-D with numDims = {} entries", inShape(1),
                  inShape(2), dims);
    if (inInfo(2).dataType() != DataType::UINT8 && inInfo(2).dataType() != DataType::BOOL)
      throw error("is_open_spline (input 2) has type {}, expected UINT8 or BOOL", toString(inInfo(2).dataType()));
    int64_t splines = 1;
    for (int64_t d = 0; d < dims; ++d) splines *= degree + 1;
    outInfo(0) = TensorInfo(inInfo(0).dataType(), {inShape(0)[0], splines});
    outInfo(1) = TensorInfo(DataType::INT32, {inShape(0)[0], splines});
  }
};

class SplineWeightingOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inRank(0) != 2 || inRank(1) != 3 || inRank(2) != 2 || inRank(3) != 2)
      throw error("expected input [E, Cin], weight [K, Cin, Cout], basis [E, S], weight_index [E, S]; got {}, {}, "
                  "{}, {}", inShape(0), inShape(1), inShape(2), inShape(3));
    const int64_t edges = inShape(0)[0];
    if (inShape(1)[1] != inShape(0)[1] || inShape(2)[0] != edges || inShape(3) != inShape(2))
      throw error("inconsistent shapes: input {}, weight {}, basis {}, weight_index {}", inShape(0), inShape(1),
                  inShape(2), inShape(3));
    checkIntType(*this, 3, "weight_index");
    for (InIndex i : {1, 2})
      if (inInfo(i).dataType() != inInfo(0).dataType())
        throw error("input {} has type {}, expected the input's type {}", i, toString(inInfo(i).dataType()),
                    toString(inInfo(0).dataType()));
    outInfo(0) = TensorInfo(inInfo(0).dataType(), {edges, inShape(1)[2]});
  }
};

} // namespace
POPART_REGISTER_OP(SplineBasisOp, graphcoreOp("SplineBasis"), floatTypes());
POPART_REGISTER_OP(SplineWeightingOp, graphcoreOp("SplineWeighting"), floatTypes());
} // namespace popart
