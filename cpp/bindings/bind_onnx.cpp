// Test hooks for the ONNX wire codec: parse + re-serialise bytes or a file.
#include "onnx/model.hpp"  // private header: the codec test hooks need it
#include "bindings.hpp"

namespace popart::bindings {

void bindOnnx(py::module_ &m) {
  m.def("_onnxRoundTrip", [](const py::bytes &bytes) {
    std::string in = bytes;
    std::string out;
    {
      py::gil_scoped_release release;
      out = onnxpb::serializeModel(onnxpb::parseModel(in));
    }
    return py::bytes(out);
  }, py::arg("modelBytes"), "Parses ModelProto bytes and serialises them again (no external data).");
  m.def("_onnxRoundTripFile", [](const std::string &path) {
    std::string out;
    {
      py::gil_scoped_release release;
      out = onnxpb::serializeModel(onnxpb::loadModelFile(path));
    }
    return py::bytes(out);
  }, py::arg("path"), "Loads a model file (resolving external data) and serialises it.");
}

} // namespace popart::bindings
