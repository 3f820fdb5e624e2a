// cppimport
// LeakyRelu as a PopXL custom op:  y = x >= 0 ? x : alpha * x.   Gradient: dx = dy * (x >= 0 ? 1 : alpha).
// One file holds the parameter struct, the IR op and its CPU kernel (Opx), the gradient op and its Opx, and
// the pybind11 module `leaky_relu_op_impl` that PopXL's wrapper (leaky_relu.py) creates the op through.
// Built either by CMake (CMakeLists.txt beside this file) or on first import by cppimport, configured by the
// block below (the include and library folders come from `python -m popart --includedir / --libdir`).
/*
<%
import subprocess, sys
def _popart(flag):
    return subprocess.check_output([sys.executable, "-m", "popart", flag], text=True).strip()
cfg['include_dirs'] = [_popart('--includedir')]
cfg['library_dirs'] = [_popart('--libdir')]
cfg['libraries'] = ['popart']
cfg['extra_compile_args'] = ['-std=c++17', '-O2']
cfg['extra_link_args'] = ['-Wl,-rpath,' + _popart('--libdir')]
setup_pybind11(cfg)
%>
*/
#include <popart/attributes.hpp>
#include <popart/error.hpp>
#include <popart/graph.hpp>
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
#include <popart/popx/opx.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

const popart::OperatorIdentifier leakyReluId{"popxl.custom", "LeakyRelu", 1};
const popart::OperatorIdentifier leakyReluGradId{"popxl.custom", "LeakyReluGrad", 1};

// ---------------------------------------------------------------- parameter struct

/// Everything that configures one LeakyRelu: bound to Python as LeakyReluParams.
struct LeakyReluParams {
  float alpha = 0.01f;

  /// The parameters of an op created by identifier (generic createConnectedOp, ONNX import).
  static LeakyReluParams fromAttributes(const popart::Attributes &attributes) {
    return {attributes.getAttribute<popart::Attributes::Float>("alpha", 0.01f)};
  }
  void appendAttributes(popart::OpSerialiserBase &os) const { os.appendAttribute("alpha", alpha); }
};

// ---------------------------------------------------------------- IR ops

class LeakyReluOp;

/// Inputs: dY (0), X (1). Output: dX (0).
class LeakyReluGradOp final : public popart::Op {
public:
  LeakyReluGradOp(const popart::OperatorIdentifier &opid, const LeakyReluParams &params,
                  const popart::Op::Settings &settings)
      : popart::Op(opid, settings), params_(params) {}
  explicit LeakyReluGradOp(const LeakyReluOp &fwd);

  std::unique_ptr<popart::Op> clone() const override { return std::make_unique<LeakyReluGradOp>(*this); }
  void setup() override { outInfo(0) = inInfo(1); }
  /// Grad input 0 is the gradient of forward output 0, grad input 1 is forward input 0.
  const std::vector<popart::GradInOutMapper> &gradInputInfo() const override {
    static const std::vector<popart::GradInOutMapper> info{{0, 0, popart::GradOpInType::GradOut},
                                                          {1, 0, popart::GradOpInType::In}};
    return info;
  }
  /// Grad output 0 is the gradient of forward input 0.
  const std::map<int, int> &gradOutToNonGradIn() const override {
    static const std::map<int, int> out{{0, 0}};
    return out;
  }
  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    params_.appendAttributes(os);
  }
  const LeakyReluParams &params() const { return params_; }

private:
  LeakyReluParams params_;
};

class LeakyReluOp final : public popart::Op {
public:
  LeakyReluOp(const popart::OperatorIdentifier &opid, const LeakyReluParams &params,
              const popart::Op::Settings &settings)
      : popart::Op(opid, settings), params_(params) {}

  static popart::OperatorIdentifier defaultOperatorId() { return leakyReluId; }

  std::unique_ptr<popart::Op> clone() const override { return std::make_unique<LeakyReluOp>(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
  std::vector<std::unique_ptr<popart::Op>> getGradOps() override {
    std::vector<std::unique_ptr<popart::Op>> ops;
    ops.push_back(std::make_unique<LeakyReluGradOp>(*this));
    return ops;
  }
  void appendAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendAttributes(os);
    params_.appendAttributes(os);
  }
  void appendOutlineAttributes(popart::OpSerialiserBase &os) const override {
    Op::appendOutlineAttributes(os);
    params_.appendAttributes(os);
  }
  const LeakyReluParams &params() const { return params_; }

private:
  LeakyReluParams params_;
};

LeakyReluGradOp::LeakyReluGradOp(const LeakyReluOp &fwd)
    : popart::Op(leakyReluGradId, fwd.settings), params_(fwd.params()) {}

// ---------------------------------------------------------------- CPU kernels (Opx)

/// Calls f(T{}) with the element type: float, or float16_t computed in float.
template <class F> void withFloatType(popart::DataType type, F f) {
  if (type == popart::DataType::FLOAT16) f(popart::float16_t{});
  else f(float{});
}

class LeakyReluOpx final : public popart::popx::Opx {
public:
  LeakyReluOpx(popart::Op *op, popart::popx::Devicex *devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<LeakyReluOp>(op, {leakyReluId});
  }
  // Runs once when the session is prepared; the step it adds runs at every session.run().
  void grow(popart::popx::Sequence &prog) const override {
    const float alpha = getOp<LeakyReluOp>().params().alpha;
    popart::popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    withFloatType(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *in = x.data<T>();
      T *out = y.data<T>();
      prog.add([in, out, n = y.nelms(), alpha] {
        parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            const float v = in[i];
            out[i] = T(v >= 0.0f ? v : alpha * v);
          }
        });
      });
    });
  }
};

class LeakyReluGradOpx final : public popart::popx::Opx {
public:
  LeakyReluGradOpx(popart::Op *op, popart::popx::Devicex *devicex) : popart::popx::Opx(op, devicex) {
    verifyOp<LeakyReluGradOp>(op, {leakyReluGradId});
  }
  void grow(popart::popx::Sequence &prog) const override {
    const float alpha = getOp<LeakyReluGradOp>().params().alpha;
    popart::popx::TensorView dy = getInTensor(0), x = getInTensor(1), dx = getOutTensor(0);
    withFloatType(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T *grad = dy.data<T>(), *in = x.data<T>();
      T *out = dx.data<T>();
      prog.add([grad, in, out, n = dx.nelms(), alpha] {
        parallelFor(n, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) out[i] = T(float(grad[i]) * (float(in[i]) >= 0.0f ? 1.0f : alpha));
        });
      });
    });
  }
};

// ---------------------------------------------------------------- registration

const popart::OpDefinition::DataTypes floatTypes{popart::DataType::FLOAT16, popart::DataType::FLOAT};

popart::OpCreator<LeakyReluOp> leakyReluOpCreator(
    popart::OpDefinitions({{leakyReluId, popart::OpDefinition({{"input", floatTypes}}, {{"output", floatTypes}},
                                                              {{"alpha", {"*"}}})}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<LeakyReluOp>(info.opid, LeakyReluParams::fromAttributes(info.attributes),
                                           info.settings);
    },
    true);
// Grad ops come from getGradOps(); registering this one (not public) makes it creatable on its own too.
popart::OpCreator<LeakyReluGradOp> leakyReluGradOpCreator(
    popart::OpDefinitions({{leakyReluGradId, popart::OpDefinition({{"gradient", floatTypes}, {"input", floatTypes}},
                                                                  {{"output", floatTypes}}, {{"alpha", {"*"}}})}}),
    [](const popart::OpCreatorInfo &info) {
      return std::make_unique<LeakyReluGradOp>(info.opid, LeakyReluParams::fromAttributes(info.attributes),
                                               info.settings);
    },
    false);
popart::popx::OpxCreator<LeakyReluOpx> leakyReluOpxCreator({leakyReluId});
popart::popx::OpxCreator<LeakyReluGradOpx> leakyReluGradOpxCreator({leakyReluGradId});

} // namespace

// ---------------------------------------------------------------- Python bindings

namespace py = pybind11;

// The op's Python class derives from popart._internal.ir's Op (same process-wide pybind11 registry), so
// what create_op_in_graph returns is an ordinary IR op to PopXL.
PYBIND11_MODULE(leaky_relu_op_impl, m) {
  m.doc() = "LeakyRelu custom op for PopXL: LeakyReluParams and LeakyRelu.create_op_in_graph";
  py::class_<LeakyReluParams>(m, "LeakyReluParams")
      .def(py::init([](float alpha) { return LeakyReluParams{alpha}; }), py::arg("alpha") = 0.01f)
      .def_readwrite("alpha", &LeakyReluParams::alpha)
      .def("__repr__",
           [](const LeakyReluParams &p) { return "LeakyReluParams(alpha=" + std::to_string(p.alpha) + ")"; });
  py::class_<LeakyReluOp, popart::Op, std::unique_ptr<LeakyReluOp, py::nodelete>>(m, "LeakyRelu")
      .def_static("default_opid", &LeakyReluOp::defaultOperatorId)
      .def_static(
          "create_op_in_graph",
          [](popart::Graph &graph, const std::map<popart::InIndex, popart::TensorId> &inputs,
             const std::map<popart::OutIndex, popart::TensorId> &outputs, const LeakyReluParams &params,
             const popart::Op::Settings &settings) {
            if (settings.graph != &graph)
              throw popart::error("LeakyRelu.create_op_in_graph: the settings belong to graph '{}', not to '{}'",
                                  settings.graph->displayName(), graph.displayName());
            auto *op = graph.createOp<LeakyReluOp>(LeakyReluOp::defaultOperatorId(), params, settings);
            op->attributes().setAttribute("alpha", params.alpha);
            graph.connectAndSetup(op, inputs, outputs);
            return op;
          },
          py::arg("graph"), py::arg("inputs"), py::arg("outputs"), py::arg("params"), py::arg("settings"),
          py::return_value_policy::reference)
      .def_property_readonly("params", &LeakyReluOp::params);
}
