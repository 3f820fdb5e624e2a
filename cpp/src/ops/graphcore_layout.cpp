// Layout ops of ai.graphcore (opset 1):
//   Reverse (dimensions): y[i] = x[i with i_k := d_k - 1 - i_k for k in dimensions].
//     Gradient: dx = Reverse(dy) over the same dimensions.
//   Subsample (strides s): y[i] = x[i_0 s_0, i_1 s_1, ...], y_k = ceil(d_k / s_k).
//     Gradient: dx = zeros, dx[i s] = dy[i].
//   Slice (graphcore 1; starts, ends, axes attributes): y = x[starts:ends] along axes, negative
//     bounds counting from the end, then clamped to [0, d]. Gradient: dx = zeros, dx[slice] = dy.
//   SequenceSlice(source, destination, N, sourceOffset, destinationOffset): y = destination,
//     then for each entry j (up to the first N[j] = 0), rows [dOff_j, dOff_j + N_j) of y
//     along axis 0 := rows [sOff_j, sOff_j + N_j) of source; with zeroUnused = 1 the rows
//     no entry writes are zeroed. Gradient: dSource rows [sOff_j, sOff_j + N_j) += dy rows
//     [dOff_j, dOff_j + N_j); dDestination = dy (zeros with zeroUnused) with the written rows zeroed.
//   NormalizeImage(image [.., 3], offsets [3], scales [3]): y[.., c] = (image[.., c] * scale
//     - offsets[c]) * scales[c] for c < 3 and y[.., 3] = 0 (channels padded to 4), in the
//     type of offsets. No gradient.
#include "ops/graphcore_layout.hpp"
#include "popart/opmanager.hpp"
#include "shape_util.hpp"

namespace popart {

void StridedViewOp::setup() {
  const Shape &in = inShape(0);
  const int64_t rank = inRank(0);
  begins_.assign(in.size(), 0);
  steps_.assign(in.size(), 1);
  Shape out = in;
  if (opid.type == "Reverse") {
    for (int64_t a : shapeutil::normaliseAxes(attr<Attributes::Ints>("dimensions"), rank, "dimensions")) {
      begins_[a] = std::max<int64_t>(in[a] - 1, 0);
      steps_[a] = -1;
    }
  } else if (opid.type == "Slice") {
    const auto &starts = attr<Attributes::Ints>("starts"), &ends = attr<Attributes::Ints>("ends");
    const auto &axes = attr<Attributes::Ints>("axes");
    if (starts.size() != ends.size() || axes.size() != starts.size())
      throw error("attributes 'starts' {}, 'ends' {} and 'axes' {} must have the same length", starts, ends, axes);
    const std::vector<int64_t> norm = shapeutil::normaliseAxes(axes, rank);
    for (size_t i = 0; i < norm.size(); ++i) {
      const int64_t a = norm[i], d = in[a];
      const int64_t b = std::clamp<int64_t>(starts[i] < 0 ? starts[i] + d : starts[i], 0, d);
      const int64_t e = std::clamp<int64_t>(ends[i] < 0 ? ends[i] + d : ends[i], 0, d);
      out[a] = std::max<int64_t>(e - b, 0);
      begins_[a] = out[a] > 0 ? b : 0;
    }
  } else {
    const auto &strides = attr<Attributes::Ints>("strides");
    if (static_cast<int64_t>(strides.size()) != rank)
      throw error("attribute 'strides' {} must have one entry per input dimension ({})", strides, rank);
    for (int64_t a = 0; a < rank; ++a) {
      if (strides[a] < 1) throw error("attribute 'strides' {} must be positive", strides);
      steps_[a] = strides[a];
      out[a] = (in[a] + strides[a] - 1) / strides[a];
    }
  }
  outInfo(0) = TensorInfo(inInfo(0).dataType(), out);
}

std::vector<std::unique_ptr<Op>> StridedViewOp::getGradOps() { return gradOps<StridedViewGradOp>(*this); }

namespace {

class SequenceSliceOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inRank(0) < 2 || inRank(1) < 2)
      throw error("source {} and destination {} must have rank >= 2", inShape(0), inShape(1));
    if (inInfo(0).dataType() != inInfo(1).dataType())
      throw error("source type {} differs from destination type {}", toString(inInfo(0).dataType()),
                  toString(inInfo(1).dataType()));
    if (inInfo(0).nelms() / inShape(0)[0] != inInfo(1).nelms() / inShape(1)[0] && inShape(0)[0] && inShape(1)[0])
      throw error("source {} and destination {} must have the same number of elements per row", inShape(0),
                  inShape(1));
    for (InIndex i : {2, 3, 4}) {
      const DataType t = inInfo(i).dataType();
      if (t != DataType::INT32 && t != DataType::UINT32 && t != DataType::INT64)
        throw error("input {} ({}) has type {}, expected INT32, UINT32 or INT64", i, i == 2 ? "N" : "an offset",
                    toString(t));
      if (inRank(i) != 1 || inShape(i) != inShape(2))
        throw error("N {}, sourceOffset {} and destinationOffset {} must be 1-D of the same size", inShape(2),
                    inShape(3), inShape(4));
    }
    outInfo(0) = inInfo(1);
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override;
};

/// Inputs dY, N, sourceOffset, destinationOffset; outputs dSource, dDestination.
class SequenceSliceGradOp final : public Op {
public:
  explicit SequenceSliceGradOp(const SequenceSliceOp &fwd)
      : Op(internalOp("SequenceSliceGrad"), fwd.settings), srcInfo_(fwd.inInfo(0)), dstInfo_(fwd.inInfo(1)) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    outInfo(0) = srcInfo_;
    outInfo(1) = dstInfo_;
  }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> ins{{0, 0, GradOpInType::GradOut}, {1, 2, GradOpInType::In},
                                                  {2, 3, GradOpInType::In}, {3, 4, GradOpInType::In}};
    return ins;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> outs{{0, 0}, {1, 1}};
    return outs;
  }

private:
  TensorInfo srcInfo_, dstInfo_;
};

std::vector<std::unique_ptr<Op>> SequenceSliceOp::getGradOps() { return gradOps<SequenceSliceGradOp>(*this); }

class NormalizeImageOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const DataType t = inInfo(1).dataType();
    if (t != DataType::FLOAT && t != DataType::FLOAT16)
      throw error("offsets (input 1) have type {}, expected FLOAT or FLOAT16", toString(t));
    if (inInfo(2).dataType() != t || inShape(1) != Shape{3} || inShape(2) != Shape{3})
      throw error("offsets {} and scales {} must both be 3 elements of one type", inInfo(1).toString(),
                  inInfo(2).toString());
    const DataType it = inInfo(0).dataType();
    if (it != DataType::UINT8 && it != t)
      throw error("image (input 0) has type {}, expected UINT8 or the offsets' type {}", toString(it), toString(t));
    if (inRank(0) < 1 || inShape(0).back() != 3)
      throw error("image (input 0) has shape {}, expected 3 channels in the last dimension", inShape(0));
    Shape out = inShape(0);
    out.back() = 4;
    outInfo(0) = TensorInfo(t, out);
  }
};

} // namespace
POPART_REGISTER_OP(StridedViewOp, graphcoreOp("Reverse"), shapeutil::copyableTypes());
POPART_REGISTER_OP(StridedViewOp, graphcoreOp("Subsample"), shapeutil::copyableTypes());
POPART_REGISTER_OP(StridedViewGradOp, internalOp("ReverseGrad"));
POPART_REGISTER_OP(StridedViewGradOp, internalOp("SubsampleGrad"));
POPART_REGISTER_OP(StridedViewOp, graphcoreOp("Slice"), shapeutil::copyableTypes());
POPART_REGISTER_OP(StridedViewGradOp, internalOp("GraphcoreSliceGrad"));
POPART_REGISTER_OP(SequenceSliceOp, graphcoreOp("SequenceSlice"), shapeutil::copyableTypes());
POPART_REGISTER_OP(SequenceSliceGradOp, internalOp("SequenceSliceGrad"));
POPART_REGISTER_OP(NormalizeImageOp, graphcoreOp("NormalizeImage"), {DataType::UINT8, DataType::FLOAT16,
                                                                      DataType::FLOAT});
} // namespace popart
