// MultiConv (ai.graphcore 1): independent convolutions in one op. Conv i reads X (input 3i), W (3i+1) and an
// optional B (3i+2) and writes output i = Conv(X, W, B) with group X[1] / W[1]; its strides, dilations and pads are
// consecutive slices (spatial rank, rank, 2 * rank values) of the flattened per-conv attribute lists.
// Gradients: per conv, ConvDataGrad, ConvWeightsGrad and ConvBiasGrad as for Conv.
#include "conv_attributes.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"

namespace popart {
namespace {

/// Values [begin, begin + count) of the flattened list `name` (empty when the list is absent).
Shape multiConvSlice(const Op &op, const std::string &name, size_t begin, size_t count, size_t total) {
  auto v = op.attr<Attributes::Ints>(name, {});
  if (v.empty()) return {};
  if (v.size() != total)
    throw error("attribute {} has {} values, expected {} (all convolutions)", name, v.size(), total);
  return Shape(v.begin() + begin, v.begin() + begin + count);
}

} // namespace

WindowGeometry multiConvGeometry(const Op &op, int conv) {
  size_t before = 0, total = 0;
  for (int i = 0; i < op.output->n(); ++i) {
    size_t r = op.inShape(3 * i).size() - 2;
    if (i < conv) before += r;
    total += r;
  }
  const auto &x = op.inShape(3 * conv), &w = op.inShape(3 * conv + 1);
  size_t r = x.size() - 2;
  WindowAttributes a{multiConvSlice(op, "strides", before, r, total), multiConvSlice(op, "dilations", before, r, total),
                     multiConvSlice(op, "pads", 2 * before, 2 * r, 2 * total)};
  return windowGeometry(a, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()));
}

namespace {

class MultiConvOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    std::vector<std::unique_ptr<Op>> v;
    for (int i = 0; i < output->n(); ++i) {
      auto g = multiConvGeometry(*this, i);
      v.push_back(makeConvGradOp("ConvDataGrad", *this, g, 3 * i + 1, 3 * i, i));
      v.push_back(makeConvGradOp("ConvWeightsGrad", *this, g, 3 * i, 3 * i + 1, i));
      if (hasInput(3 * i + 2)) v.push_back(makeConvGradOp("ConvBiasGrad", *this, g, -1, 3 * i + 2, i));
    }
    return v;
  }
  void setup() override {
    int convs = output->n();
    if (input->maxIndex() > 3 * convs) throw error("MultiConv has {} outputs but {} inputs", convs, input->maxIndex());
    for (const auto &name : {"inDilations", "outPads"}) {
      auto v = attr<Attributes::Ints>(name, {});
      int64_t neutral = std::string(name) == "outPads" ? 0 : 1;
      for (auto d : v)
        if (d != neutral) throw error("attribute {} {} is not supported (only {}s)", name, v, neutral);
    }
    for (int i = 0; i < convs; ++i) setupConv(i);
  }

private:
  void setupConv(int i) {
    if (!hasInput(3 * i) || !hasInput(3 * i + 1)) throw error("convolution {} needs data and weights inputs", i);
    const auto &x = inInfo(3 * i), &w = inInfo(3 * i + 1);
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
      throw error("convolution {}: data {} must be 3-D, 4-D or 5-D with weights {} of the same rank", i, x.shape(),
                  w.shape());
    if (w.dataType() != x.dataType()) throw error("convolution {}: data and weights types differ", i);
    int64_t m = w.dim(0);
    if (w.dim(1) < 1 || x.dim(1) % w.dim(1) != 0 || m % (x.dim(1) / w.dim(1)) != 0)
      throw error("convolution {}: weights {} do not fit {} data channels (W[1] must divide them, W[0] by the groups)",
                  i, w.shape(), x.dim(1));
    if (hasInput(3 * i + 2) && inInfo(3 * i + 2).shape() != Shape{m})
      throw error("convolution {}: bias {} must have shape [{}]", i, inInfo(3 * i + 2).shape(), m);
    auto g = multiConvGeometry(*this, i);
    Shape out{x.dim(0), m};
    out.insert(out.end(), g.out.begin(), g.out.end());
    outInfo(i) = TensorInfo(x.dataType(), out);
  }
};

} // namespace
POPART_REGISTER_OP(MultiConvOp, graphcoreOp("MultiConv", {1}), floatTypes());
} // namespace popart
