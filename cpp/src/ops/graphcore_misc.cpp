// Small ai.graphcore ops (opset 1):
//   Nop, AutoLossScaleProxy: y = x (a copy the IR keeps; the proxy marks where
//     automatic loss scaling would look at gradients).  dx = dy.
//   UnaryZeroGrad: y = zeros like x (the gradient of ops whose derivative is 0).
//   Square: y = x * x.                                 dx = 2 x dy.
//   Zeros (shape, dtype) / ZerosLike(x) / Init (shape, data_type, init_type: 0 = no
//     init, contents undefined; 1 = zeros): fresh tensors, no gradient.
//   IncrementMod: y = (x + increment) mod modulus (C fmod / integer %), no gradient.
//   TensorRemap: y = x. On the IPU it re-lays a tensor out in tile memory
//     (remap_type 0 = forward and backward, 1 = forward, 2 = backward); the CPU has
//     one memory layout, so it is a plain copy. dx = dy.
//   Reshape (graphcore 1): y = x with the explicit `shape` attribute. dx = dy reshaped.
//   CopyVarUpdate(var, updater): var := updater in place; y aliases var.
//   PrintTensor: y = x, printing x on every run (format in kernels/graphcore_misc.cpp) unless
//     print_self = 0; its gradient prints dy too when print_gradient = 1, and passes it through.
#include "popart/ir.hpp"
#include "popart/op/elementwise.hpp"
#include "popart/opmanager.hpp"
#include "shape_grad.hpp"
#include "popart/sessionoptions.hpp"
#include "shape_util.hpp"

namespace popart {
namespace {

/// y = x copied; the gradient is dy viewed as x.
class CopyLikeOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (opid.type == "TensorRemap") {
      const int64_t t = attr<Attributes::Int>("remap_type", 0);
      if (t < 0 || t > 2) throw error("attribute 'remap_type' is {}, expected 0, 1 or 2", t);
    }
    ElementWiseUnaryOp::setup();
  }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReshapeGradOp>(*this); }
};

class SquareGradOp final : public ElementWiseNonLinearUnaryGradOp {
public:
  explicit SquareGradOp(const Op &fwd) : ElementWiseNonLinearUnaryGradOp(internalOp("SquareGrad"), fwd) {}
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
};

class SquareOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<SquareGradOp>(*this); }
};

class IncrementModOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    attr<Attributes::Float>("increment");
    if (attr<Attributes::Float>("modulus") == 0.0f) throw error("attribute 'modulus' must not be 0");
    ElementWiseUnaryOp::setup();
  }
};

/// Zeros / ZerosLike / Init: a fresh tensor without inputs (ZerosLike: shaped as input 0).
class FreshTensorOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (opid.type == "ZerosLike" || opid.type == "UnaryZeroGrad") {
      outInfo(0) = inInfo(0);
      return;
    }
    Shape shape = attr<Attributes::Ints>("shape");
    for (int64_t d : shape)
      if (d < 0) throw error("attribute 'shape' {} has a negative dimension", shape);
    if (opid.type == "Zeros") {
      outInfo(0) = TensorInfo(onnxElemTypeToDataType(attr<Attributes::Int>("dtype", 1)), shape);
      return;
    }
    const int64_t t = attr<Attributes::Int>("data_type");
    if (t < 0 || t > static_cast<int64_t>(DataType::DOUBLE))
      throw error("attribute 'data_type' is {}, expected a popart DataType value (UINT8=0 .. DOUBLE=14)", t);
    const int64_t init = attr<Attributes::Int>("init_type");
    if (init != 0 && init != 1) throw error("attribute 'init_type' is {}, expected 0 (NoInit) or 1 (Zero)", init);
    const int64_t batchAxis = attr<Attributes::Int>("batch_axis", -1);
    if (batchAxis < -1 || batchAxis >= static_cast<int64_t>(shape.size()))
      throw error("attribute 'batch_axis' {} out of range for shape {}", batchAxis, shape);
    outInfo(0) = TensorInfo(static_cast<DataType>(t), shape);
  }

private:
  static DataType onnxElemTypeToDataType(int64_t t) {
    switch (t) {
    case 1: return DataType::FLOAT;
    case 2: return DataType::UINT8;
    case 3: return DataType::INT8;
    case 5: return DataType::INT16;
    case 6: return DataType::INT32;
    case 7: return DataType::INT64;
    case 9: return DataType::BOOL;
    case 10: return DataType::FLOAT16;
    case 11: return DataType::DOUBLE;
    default: throw error("attribute 'dtype' is {}, expected an ONNX numeric element type", t);
    }
  }
};

class GraphcoreReshapeOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const Shape shape = attr<Attributes::Ints>("shape");
    for (int64_t d : shape)
      if (d < 0) throw error("attribute 'shape' {} has a negative dimension", shape);
    if (shapeutil::product(shape, 0, shape.size()) != inInfo(0).nelms())
      throw error("attribute 'shape' {} has {} elements, the input {} has {}", shape,
                  shapeutil::product(shape, 0, shape.size()), inShape(0), inInfo(0).nelms());
    outInfo(0) = TensorInfo(inInfo(0).dataType(), shape);
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  std::vector<std::unique_ptr<Op>> getGradOps() override { return gradOps<ReshapeGradOp>(*this); }
};

class CopyVarUpdateOp final : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    if (inInfo(0) != inInfo(1))
      throw error("updater (input 1) {} must have the type and shape of the variable (input 0) {}",
                  inInfo(1).toString(), inInfo(0).toString());
    outInfo(0) = inInfo(0);
  }
  bool aliases(InIndex in, OutIndex out) const override { return in == 0 && out == 0; }
  bool modifies(InIndex in) const override { return in == 0; }
  bool hasSideEffect() const override { return true; }
};

class PrintTensorGradOp final : public ShapeGradOp {
public:
  explicit PrintTensorGradOp(const Op &fwd) : ShapeGradOp(internalOp("PrintTensorGrad"), fwd) {
    attributes() = fwd.attributes();
    attributes().setAttribute("title", "Gradient___" + fwd.attr<Attributes::String>("title", fwd.inId(0)));
    attributes().setAttribute("print_self", int64_t(1));
  }
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  bool hasSideEffect() const override { return true; }
};

class PrintTensorOp final : public ElementWiseUnaryOp {
public:
  using ElementWiseUnaryOp::ElementWiseUnaryOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override {
    const int64_t f = attr<Attributes::Int>("floatFormat", 0);
    if (f < 0 || f > 3) throw error("attribute 'floatFormat' is {}, expected 0 (auto) .. 3 (none)", f);
    if (attr<Attributes::Int>("edgeItems", 3) < 0 || attr<Attributes::Int>("digits", 8) < 0)
      throw error("attributes 'edgeItems' and 'digits' must be non-negative");
    ElementWiseUnaryOp::setup();
  }
  bool hasSideEffect() const override { return true; }
  std::vector<std::unique_ptr<Op>> getGradOps() override {
    if (attr<Attributes::Int>("print_gradient", 1) != 0) return gradOps<PrintTensorGradOp>(*this);
    return gradOps<ReshapeGradOp>(*this);
  }
};

} // namespace
POPART_REGISTER_OP(CopyLikeOp, graphcoreOp("Nop"), shapeutil::copyableTypes());
POPART_REGISTER_OP(CopyLikeOp, graphcoreOp("TensorRemap"), shapeutil::copyableTypes());
POPART_REGISTER_OP(CopyLikeOp, graphcoreOp("AutoLossScaleProxy"), floatTypes());
POPART_REGISTER_OP(FreshTensorOp, graphcoreOp("UnaryZeroGrad"), allTypes());
POPART_REGISTER_OP(SquareOp, graphcoreOp("Square"), numericTypes());
POPART_REGISTER_OP(SquareGradOp, internalOp("SquareGrad"));
POPART_REGISTER_OP(IncrementModOp, graphcoreOp("IncrementMod"), numericTypes());
POPART_REGISTER_OP(FreshTensorOp, graphcoreOp("Zeros"));
POPART_REGISTER_OP(FreshTensorOp, graphcoreOp("ZerosLike"), allTypes());
POPART_REGISTER_OP(FreshTensorOp, graphcoreOp("Init"));
POPART_REGISTER_OP(GraphcoreReshapeOp, graphcoreOp("Reshape"), shapeutil::copyableTypes());
POPART_REGISTER_OP(CopyVarUpdateOp, graphcoreOp("CopyVarUpdate"), shapeutil::copyableTypes());
POPART_REGISTER_OP(PrintTensorOp, graphcoreOp("PrintTensor"), allTypes());
POPART_REGISTER_OP(PrintTensorGradOp, internalOp("PrintTensorGrad"));
} // namespace popart
