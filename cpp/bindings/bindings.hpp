// Declarations of the per-area binding functions called by module.cpp.
#pragma once
#include <pybind11/pybind11.h>
#include <string>

namespace popart::bindings {
namespace py = pybind11;
void bindErrors(py::module_ &m);
void bindCore(py::module_ &m);  // DataType, TensorInfo, logging, versions, reserved prefixes
void bindOnnx(py::module_ &m);  // ONNX codec test hooks (_onnxRoundTrip, _onnxRoundTripFile)
void bindOptions(py::module_ &m);  // SessionOptions, Patterns
void bindDevice(py::module_ &m);   // DeviceManager, DeviceInfo
void bindStepIO(py::module_ &m);   // PyStepIO, PyStepIOCallback, PyWeightsIO
void bindOptimizer(py::module_ &m); // SGD, ConstSGD, OptimizerValue(Map)
void bindDataFlow(py::module_ &m); // AnchorReturnType(Id), DataFlow, InputShapeInfo (bind_session.cpp)
void bindSession(py::module_ &m);  // _InferenceSessionCore, _TrainingSessionCore
void bindRegistry(py::module_ &m); // OperatorIdentifier, OpDefinition, getSupportedOperations, TensorRemapType
void bindBuilder(py::module_ &m);  // _BuilderCore, its settings types and context managers, _opSchemas
/// The docstring of SessionOptions.<name> (option_docs.cpp); internal_error when there is none.
const char *sessionOptionDoc(const std::string &name);
void bindDistributed(py::module_ &m); // _setProcessGroup: the MPI process group of distributed sessions
void bindRemoteBuffers(py::module_ &m); // _SessionCore's access to the replicas' remote buffers
} // namespace popart::bindings
