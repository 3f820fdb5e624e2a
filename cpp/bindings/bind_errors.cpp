// C++ exceptions -> Python exception classes. Translators run newest first, so
// derived classes are registered after their base.
#include "bindings.hpp"
#include "popart/error.hpp"

namespace popart::bindings {

void bindErrors(py::module_ &m) {
  auto &base = py::register_exception<error>(m, "popart_exception", PyExc_RuntimeError);
  py::register_exception<internal_error>(m, "popart_internal_exception", base.ptr());
  py::register_exception<runtime_error>(m, "popart_runtime_error", base.ptr());
  py::register_exception<memory_allocation_err>(m, "popart_memory_allocation_error", base.ptr());
}

} // namespace popart::bindings
