// C++ exceptions -> Python exception classes. Translators run newest first, so
// derived classes are registered after their base.
#include "bindings.hpp"
#include "popart/error.hpp"
#include "popart/poplar_error.hpp"
#include <new>

namespace popart::bindings {
namespace {

void bindPoplarErrors(py::module_ &m) {
  py::enum_<RecoveryAction>(m, "RecoveryAction")
      .value("IPU_RESET", RecoveryAction::IPU_RESET)
      .value("LINK_RESET", RecoveryAction::LINK_RESET)
      .value("PARTITION_RESET", RecoveryAction::PARTITION_RESET)
      .value("FULL_RESET", RecoveryAction::FULL_RESET)
      .value("POWER_CYCLE", RecoveryAction::POWER_CYCLE);
  py::register_exception<poplibs_exception>(m, "poplibs_exception", PyExc_RuntimeError);
  auto &poplar = py::register_exception<poplar_exception>(m, "poplar_exception", PyExc_RuntimeError);
  auto &rt = py::register_exception<poplar_runtime_error>(m, "poplar_runtime_error", poplar.ptr());
  py::register_exception<poplar_application_runtime_error>(m, "poplar_application_runtime_error", rt.ptr());
  py::register_exception<poplar_unknown_runtime_error>(m, "poplar_unknown_runtime_error", rt.ptr());
  auto &sys = py::register_exception<poplar_system_runtime_error>(m, "poplar_system_runtime_error", rt.ptr());
  py::register_exception<poplar_unrecoverable_runtime_error>(m, "poplar_unrecoverable_runtime_error", sys.ptr());
  // The recoverable error carries `recoveryAction`; host memory exhaustion raises it.
  static py::handle recoverable =
      py::exception<poplar_recoverable_runtime_error>(m, "poplar_recoverable_runtime_error", sys.ptr()).release();
  recoverable.attr("recoveryAction") = py::none();
  py::register_exception_translator([](std::exception_ptr p) {
    auto raise = [](const std::string &what, RecoveryAction action) {
      py::object e = py::reinterpret_borrow<py::object>(recoverable)(what);
      e.attr("recoveryAction") = py::cast(action);
      PyErr_SetObject(recoverable.ptr(), e.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const poplar_recoverable_runtime_error &e) {
      raise(e.what(), e.recoveryAction);
    } catch (const std::bad_alloc &) {
      raise("the host ran out of memory; free memory, then create the session again (recovery action: IPU_RESET)",
            RecoveryAction::IPU_RESET);
    }
  });
}

} // namespace

void bindErrors(py::module_ &m) {
  auto &base = py::register_exception<error>(m, "popart_exception", PyExc_RuntimeError);
  py::register_exception<internal_error>(m, "popart_internal_exception", base.ptr());
  py::register_exception<runtime_error>(m, "popart_runtime_error", base.ptr());
  py::register_exception<memory_allocation_err>(m, "popart_memory_allocation_error", base.ptr());
  bindPoplarErrors(m);
}

} // namespace popart::bindings
