// MaxPool (1, 8, 10, 11, 12), AveragePool (1, 7, 10, 11, 19), LpPool (1, 2, 11, 18, 22): Y[n, c, o] = max /
// mean / (sum |x|^p)^(1/p) over the window x[n, c, o*s + k*d - padBegin] (window rules in conv_attributes.hpp;
// AveragePool divides by the count of in-bounds elements, or of padded ones with count_include_pad; padding
// adds nothing to LpPool). GlobalAveragePool/GlobalMaxPool (1): whole spatial extent.
// Gradients (<type>Grad, inputs dY, X): max pools route dY to the window's first maximum; average pools
// spread dY / count evenly over the window's counted positions; LpPool gives each tap
// dy sign(x) |x|^(p-1) / y^(p-1) (0 where y = 0). The Indices output has no gradient.
// MaxUnpool (9, 11, 22): Y = zeros, Y.flat[I[j]] = X.flat[j]; Y's spatial dims are (in - 1) * stride
// - padBegin - padEnd + kernel, or those of the constant output_shape input (I indexes that shape, as
// MaxPool's Indices index its input, as onnxruntime and torch read it). Inference only.
#include "conv_attributes.hpp"
#include "popart/error.hpp"
#include "popart/opmanager.hpp"
#include <variant>

namespace popart {

double lpPoolExponent(const Op &op) {  // read by value type, so grad ops (internal, version 1) agree
  const auto &values = op.attributes().values();
  const auto it = values.find("p");
  if (it == values.end()) return 2.0;
  if (const auto *f = std::get_if<Attributes::Float>(&it->second)) return *f;
  return static_cast<double>(op.attr<Attributes::Int>("p"));  // throws, naming p, for other types
}

namespace {

void checkPoolInput(const TensorInfo &x) {
  if (x.rank() < 3) throw error("pooling input X must have rank >= 3 ([N, C, spatial...]), got {}", x.shape());
}

/// LpPool's p (FLOAT in opset 1, INT later) must be positive; dilations and ceil_mode came with opset 18.
void checkLpPool(const Op &op) {
  const double p = lpPoolExponent(op);
  if (!(p > 0)) throw error("attribute p={} must be positive", p);
  for (const char *name : {"dilations", "ceil_mode"})
    if (op.opid.version < 18 && op.attributes().hasAttribute(name))
      throw error("attribute {} needs LpPool opset 18 or later", name);
}

/// Attributes: the forward op's. Output dX has the info of X.
class PoolGradOp final : public Op {
public:
  explicit PoolGradOp(const Op &fwd) : Op(internalOp(fwd.opid.type + "Grad"), fwd.settings) {
    attributes() = fwd.attributes();
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<GradInOutMapper> info{{0, 0, GradOpInType::GradOut}, {1, 0, GradOpInType::In}};
    return info;
  }
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }
};

class PoolOp final : public Op {  // input X; outputs Y (0), Indices (1, MaxPool only)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<PoolGradOp>(*this); }
  void setup() override {
    const auto &x = inInfo(0);
    checkPoolInput(x);
    if (x.rank() > 5) throw error("pooling input X must have 1 to 3 spatial dimensions, got {}", x.shape());
    if (!attributes().hasAttribute("kernel_shape")) throw error("attribute kernel_shape is required");
    bool isMax = opid.type == "MaxPool";
    if (opid.type == "AveragePool" && opid.version < 19 && attributes().hasAttribute("dilations"))
      throw error("attribute dilations needs AveragePool opset 19 or later");
    if (opid.type == "LpPool") checkLpPool(*this);
    int64_t ceil = attr<Attributes::Int>("ceil_mode", 0);
    if (ceil != 0 && ceil != 1) throw error("attribute ceil_mode must be 0 or 1, got {}", ceil);
    int64_t order = attr<Attributes::Int>("storage_order", 0);
    if (order != 0 && order != 1) throw error("attribute storage_order must be 0 or 1, got {}", order);
    auto g = windowGeometry(*this, Shape(x.shape().begin() + 2, x.shape().end()),
                            attr<Attributes::Ints>("kernel_shape"), ceil != 0);
    Shape out{x.dim(0), x.dim(1)};
    out.insert(out.end(), g.out.begin(), g.out.end());
    outInfo(0) = TensorInfo(x.dataType(), out);
    if (hasOutput(1)) {
      if (!isMax) throw error("{} has a single output", opid.type);
      outInfo(1) = TensorInfo(DataType::INT64, out);
    }
  }
};

class GlobalPoolOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<PoolGradOp>(*this); }
  void setup() override {
    const auto &x = inInfo(0);
    checkPoolInput(x);
    Shape out(x.shape().size(), 1);
    out[0] = x.dim(0);
    out[1] = x.dim(1);
    outInfo(0) = TensorInfo(x.dataType(), out);
  }
};

class MaxUnpoolOp final : public Op {  // inputs X, I, output_shape (optional)
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<InIndex> constantInputs() const override { return {2}; }
  void setup() override {
    const auto &x = inInfo(0);
    checkPoolInput(x);
    if (inInfo(1).dataType() != DataType::INT64 || inShape(1) != x.shape())
      throw error("input 1 (I) must be INT64 of X's shape {}, got {} {}", x.shape(), inInfo(1).data_type(),
                  inShape(1));
    if (!attributes().hasAttribute("kernel_shape")) throw error("attribute kernel_shape is required");
    const size_t r = static_cast<size_t>(x.rank()) - 2;
    const Shape k = convIntsAttr(*this, "kernel_shape", r, 1), s = convIntsAttr(*this, "strides", r, 1),
                pads = convIntsAttr(*this, "pads", 2 * r, 0);
    Shape out{x.dim(0), x.dim(1)};
    for (size_t i = 0; i < r; ++i) {
      if (k[i] < 1 || s[i] < 1) throw error("kernel_shape and strides must be positive, got {} and {}", k, s);
      out.push_back((x.dim(static_cast<int>(i) + 2) - 1) * s[i] - pads[i] - pads[r + i] + k[i]);
    }
    if (hasInput(2)) out = checkedOutputShape(out);
    for (int64_t d : out)
      if (d < 1) throw error("the output shape {} has a non-positive dimension", out);
    outInfo(0) = TensorInfo(x.dataType(), out);
  }

private:
  Shape checkedOutputShape(const Shape &inferred) const {
    const Shape out = inConstInts(2);
    if (out.size() != inferred.size() || out[0] != inferred[0] || out[1] != inferred[1])
      throw error("input 2 (output_shape) {} must have {} values starting with X's N and C ({}, {})", out,
                  inferred.size(), inferred[0], inferred[1]);
    return out;
  }
};

std::vector<DataType> maxPoolTypes() {
  auto t = floatTypes();
  t.push_back(DataType::INT8);
  t.push_back(DataType::UINT8);
  return t;
}

} // namespace
POPART_REGISTER_OP(PoolOp, onnxOp("MaxPool", {1, 8, 10, 11, 12}), maxPoolTypes());
POPART_REGISTER_OP(PoolOp, onnxOp("AveragePool", {1, 7, 10, 11, 19}), floatTypes());
POPART_REGISTER_OP(PoolOp, onnxOp("LpPool", {1, 2, 11, 18, 22}), floatTypes());
POPART_REGISTER_OP(MaxUnpoolOp, onnxOp("MaxUnpool", {9, 11, 22}), floatTypes());
POPART_REGISTER_OP(GlobalPoolOp, onnxOp("GlobalAveragePool", {1}), floatTypes());
POPART_REGISTER_OP(GlobalPoolOp, onnxOp("GlobalMaxPool", {1}), floatTypes());
POPART_REGISTER_OP(PoolGradOp, internalOp("MaxPoolGrad"));
POPART_REGISTER_OP(PoolGradOp, internalOp("AveragePoolGrad"));
POPART_REGISTER_OP(PoolGradOp, internalOp("LpPoolGrad"));
POPART_REGISTER_OP(PoolGradOp, internalOp("GlobalMaxPoolGrad"));
POPART_REGISTER_OP(PoolGradOp, internalOp("GlobalAveragePoolGrad"));
} // namespace popart
