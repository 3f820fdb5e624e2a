// View ops: Reshape, Flatten, Squeeze, Unsqueeze. y has x's bytes with a new
// shape, so y aliases x (the memory planner gives it x's buffer; no copy).
// Gradient (ReshapeGrad, also a view): dx = dy reshaped back to x's shape.
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

class ReshapeFamilyOp : public Op {
public:
  using Op::Op;
  void setup() override {
    Shape s = outputShape();
    const int64_t n = shapeutil::product(s, 0, s.size());
    if (n != inInfo(0).nelms())
      throw error("output shape {} has {} elements, the input has {}", s, n, inInfo(0).nelms());
    outInfo(0) = TensorInfo(inInfo(0).dataType(), s);
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReshapeGradOp>(*this); }

protected:
  virtual Shape outputShape() const = 0;
  /// Values of an attribute (older versions) or of constant input 1 (newer).
  std::vector<int64_t> attrOrInput(const char *name, int firstInputVersion, bool required) const {
    if (opid.version >= firstInputVersion) {
      if (attributes().hasAttribute(name))
        throw error("'{}' is input 1 since opset {}, not an attribute", name, firstInputVersion);
      if (hasInput(1)) return inConstInts(1);
    } else if (attributes().hasAttribute(name)) {
      return attr<Attributes::Ints>(name);
    }
    if (required) throw error("'{}' is required", name);
    return {};
  }
  std::vector<InIndex> constantInputs() const override { return {1}; }
};

class ReshapeOp final : public ReshapeFamilyOp {
public:
  using ReshapeFamilyOp::ReshapeFamilyOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }

private:
  Shape outputShape() const override {
    Shape s = attrOrInput("shape", 5, true);
    const Shape &in = inShape(0);
    bool allowZero = attr<Attributes::Int>("allowzero", 0) != 0;
    int64_t inferred = -1;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == 0 && !allowZero) {
        if (i >= in.size()) throw error("shape {}: 0 at position {} but the input has rank {}", s, i, in.size());
        s[i] = in[i];
      } else if (s[i] == -1) {
        if (inferred >= 0) throw error("shape {} has more than one -1", s);
        inferred = static_cast<int64_t>(i);
      } else if (s[i] < 0) {
        throw error("shape {} has the invalid dimension {}", s, s[i]);
      }
    }
    if (inferred >= 0) {
      s[inferred] = 1;
      int64_t rest = shapeutil::product(s, 0, s.size());
      if (rest == 0 || inInfo(0).nelms() % rest != 0)
        throw error("cannot infer the -1 dimension of shape {} for {} elements", attrOrInput("shape", 5, true),
                    inInfo(0).nelms());
      s[inferred] = inInfo(0).nelms() / rest;
    }
    return s;
  }
};

class FlattenOp final : public ReshapeFamilyOp {
public:
  using ReshapeFamilyOp::ReshapeFamilyOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }

private:
  Shape outputShape() const override {
    const Shape &in = inShape(0);
    int64_t r = inRank(0), axis = attr<Attributes::Int>("axis", 1);
    if (axis < -r || axis > r) throw error("axis {} out of range for rank {} (expected [{}, {}])", axis, r, -r, r);
    if (axis < 0) axis += r;
    return {shapeutil::product(in, 0, axis), shapeutil::product(in, axis, in.size())};
  }
  std::vector<InIndex> constantInputs() const override { return {}; }
};

class SqueezeOp final : public ReshapeFamilyOp {
public:
  using ReshapeFamilyOp::ReshapeFamilyOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }

private:
  Shape outputShape() const override {
    const Shape &in = inShape(0);
    std::vector<int64_t> axes = shapeutil::normaliseAxes(attrOrInput("axes", 13, false), inRank(0));
    Shape out;
    for (int64_t i = 0; i < inRank(0); ++i) {
      bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
      if (listed && in[i] != 1) throw error("cannot squeeze axis {} of size {}", i, in[i]);
      if (!(listed || (axes.empty() && in[i] == 1))) out.push_back(in[i]);
    }
    return out;
  }
};

class UnsqueezeOp final : public ReshapeFamilyOp {
public:
  using ReshapeFamilyOp::ReshapeFamilyOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }

private:
  Shape outputShape() const override {
    std::vector<int64_t> given = attrOrInput("axes", 13, true);
    int64_t rank = inRank(0) + static_cast<int64_t>(given.size());
    std::vector<int64_t> axes = shapeutil::normaliseAxes(given, rank);
    Shape out;
    auto in = inShape(0).begin();
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? 1 : *in++);
    return out;
  }
};

} // namespace
POPART_REGISTER_OP(ReshapeOp, onnxOp("Reshape", {1, 5, 13, 14, 19, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(FlattenOp, onnxOp("Flatten", {1, 9, 11, 13, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(SqueezeOp, onnxOp("Squeeze", {1, 11, 13, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(UnsqueezeOp, onnxOp("Unsqueeze", {1, 11, 13, 21}), shapeutil::copyableTypes());
POPART_REGISTER_OP(ReshapeGradOp, internalOp("ReshapeGrad"));
} // namespace popart
