// The popart_core extension module: one bindX(m) per area, then the release of the
// code pages only the libraries' start-up touched (cpu/startup_pages.hpp).
#include "bindings.hpp"
#include "cpu/startup_pages.hpp"

namespace popart::bindings {
void bindIrModule(py::module_ &m); // bind_ir.cpp: submodule _ir (popart._internal.ir)
}

PYBIND11_MODULE(popart_core, m) {
  m.doc() = "popart-cpu core bindings (C++ classes under private names; see the popart package)";
  popart::bindings::bindErrors(m);
  popart::bindings::bindCore(m);
  popart::bindings::bindOnnx(m);
  // Types are bound before the functions that name them, so that signatures (help(), the
  // stubs) show Python names: the builder's settings types (TensorLocation, TileSet, ...) are
  // used by SessionOptions and AnchorReturnType.
  popart::bindings::bindBuilder(m);
  popart::bindings::bindOptions(m);
  popart::bindings::bindDevice(m);
  popart::bindings::bindStepIO(m);
  popart::bindings::bindOptimizer(m);
  popart::bindings::bindRegistry(m);
  popart::bindings::bindDataFlow(m);
  popart::bindings::bindIrModule(m);  // popart_core._ir, after the types it re-exports and uses
  popart::bindings::bindSession(m);   // after _ir: sessions can be created from an _ir.Ir
  popart::bindings::bindDistributed(m);
  popart::bindings::bindRemoteBuffers(m);  // after bindSession: adds methods to _SessionCore
  popart::popx::releaseStartupPages();  // the libraries are loaded and initialised
}
