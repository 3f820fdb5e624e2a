// The popart_core extension module: one bindX(m) per area, nothing else.
#include "bindings.hpp"

namespace popart::bindings {
void bindIrModule(py::module_ &m); // bind_ir.cpp: submodule _ir (popart._internal.ir)
}

PYBIND11_MODULE(popart_core, m) {
  m.doc() = "popart-cpu core bindings (C++ classes under private names; see the popart package)";
  popart::bindings::bindErrors(m);
  popart::bindings::bindCore(m);
  popart::bindings::bindOnnx(m);
  popart::bindings::bindOptions(m);
  popart::bindings::bindDevice(m);
  popart::bindings::bindStepIO(m);
  popart::bindings::bindOptimizer(m);
  popart::bindings::bindRegistry(m);
  popart::bindings::bindBuilder(m);  // before sessions: AnchorReturnType defaults use TileSet
  popart::bindings::bindSession(m);
  popart::bindings::bindDistributed(m);
  popart::bindings::bindIrModule(m);  // popart_core._ir, after the types it re-exports
}
