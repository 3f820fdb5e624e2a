// C++ exceptions -> Python exception classes. Messages are decoded with
// backslash escapes so names holding invalid UTF-8 (from a model file) still
// give a popart error rather than a UnicodeDecodeError. The host running out of
// memory (std::bad_alloc) raises a class that is both
// popart_memory_allocation_error and poplar_recoverable_runtime_error (with
// recoveryAction IPU_RESET), so handlers written for either catch it.
#include "bindings.hpp"
#include "popart/error.hpp"
#include "popart/poplar_error.hpp"
#include <cstring>
#include <new>

namespace popart::bindings {
namespace {

PyObject *baseType, *internalType, *runtimeType, *memoryType, *recoverableType, *hostMemoryType;

PyObject *newType(py::module_ &m, const char *name, PyObject *base, const char *doc) {
  std::string full = std::string(PyModule_GetName(m.ptr())) + "." + name;
  PyObject *t = PyErr_NewExceptionWithDoc(full.c_str(), doc, base, nullptr);
  if (!t) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(t));
  return t;  // the module and this reference keep it alive for the process
}

void raise(PyObject *type, const char *what) {
  PyObject *msg = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace");
  PyErr_SetObject(type, msg);
  Py_XDECREF(msg);
}

void raiseRecoverable(PyObject *type, const char *what, RecoveryAction action) {
  py::str msg = py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace"));
  py::object e = py::reinterpret_borrow<py::object>(type)(msg);
  e.attr("recoveryAction") = py::cast(action);
  PyErr_SetObject(type, e.ptr());
}

void bindPoplarErrors(py::module_ &m) {
  py::enum_<RecoveryAction>(m, "RecoveryAction", "What a poplar_recoverable_runtime_error asks the caller to do.")
      .value("IPU_RESET", RecoveryAction::IPU_RESET)
      .value("LINK_RESET", RecoveryAction::LINK_RESET)
      .value("PARTITION_RESET", RecoveryAction::PARTITION_RESET)
      .value("FULL_RESET", RecoveryAction::FULL_RESET)
      .value("POWER_CYCLE", RecoveryAction::POWER_CYCLE);
  auto doc = [](const py::object &type, const char *text) { type.attr("__doc__") = text; };
  doc(py::register_exception<poplibs_exception>(m, "poplibs_exception", PyExc_RuntimeError),
      "PopLibs' error class, kept for handlers written for the IPU; nothing on the CPU raises it.");
  auto &poplar = py::register_exception<poplar_exception>(m, "poplar_exception", PyExc_RuntimeError);
  doc(poplar, "Base class of the Poplar error classes, kept with the IPU's hierarchy for handlers that catch them.");
  auto &rt = py::register_exception<poplar_runtime_error>(m, "poplar_runtime_error", poplar.ptr());
  doc(rt, "A Poplar error while a program runs; base of the application, unknown and system errors.");
  doc(py::register_exception<poplar_application_runtime_error>(m, "poplar_application_runtime_error", rt.ptr()),
      "A Poplar error caused by the program itself (kept for handlers; not raised on the CPU).");
  doc(py::register_exception<poplar_unknown_runtime_error>(m, "poplar_unknown_runtime_error", rt.ptr()),
      "A Poplar error of unknown cause (kept for handlers; not raised on the CPU).");
  auto &sys = py::register_exception<poplar_system_runtime_error>(m, "poplar_system_runtime_error", rt.ptr());
  doc(sys, "A system-level Poplar error; base of the recoverable and unrecoverable ones.");
  doc(py::register_exception<poplar_unrecoverable_runtime_error>(m, "poplar_unrecoverable_runtime_error", sys.ptr()),
      "A system error the process cannot recover from (kept for handlers; not raised on the CPU).");
  recoverableType = newType(m, "poplar_recoverable_runtime_error", sys.ptr(),
                            "A system error the caller can recover from by the action in its recoveryAction "
                            "attribute. On the CPU: the host ran out of memory (recoveryAction IPU_RESET: free "
                            "memory and create the session again).");
  PyObject_SetAttrString(recoverableType, "recoveryAction", Py_None);
}

} // namespace

void bindErrors(py::module_ &m) {
  baseType = newType(m, "popart_exception", PyExc_RuntimeError,
                     "A mistake in the use of popart: unknown tensor ids, wrong shapes or types, bad options or "
                     "models. The message names the tensor, op or option involved.");
  internalType = newType(m, "popart_internal_exception", baseType,
                         "A broken invariant inside popart-cpu (a bug): please report it with the message.");
  runtimeType = newType(m, "popart_runtime_error", baseType,
                        "An error while a prepared session runs (e.g. a bad value returned by a stream callback).");
  memoryType = newType(m, "popart_memory_allocation_error", baseType,
                       "Memory for a tensor or a session could not be allocated, or a size overflows.");
  bindPoplarErrors(m);
  py::tuple hostMemoryBases = py::make_tuple(py::handle(memoryType), py::handle(recoverableType));
  hostMemoryType = newType(m, "popart_host_out_of_memory_error", hostMemoryBases.ptr(),
                           "The host ran out of memory: both a popart_memory_allocation_error and a "
                           "poplar_recoverable_runtime_error (recoveryAction IPU_RESET), so handlers of either "
                           "catch it.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const memory_allocation_err &e) {
      raise(memoryType, e.what());
    } catch (const internal_error &e) {
      raise(internalType, e.what());
    } catch (const runtime_error &e) {
      raise(runtimeType, e.what());
    } catch (const error &e) {
      raise(baseType, e.what());
    } catch (const poplar_recoverable_runtime_error &e) {
      raiseRecoverable(recoverableType, e.what(), e.recoveryAction);
    } catch (const std::bad_alloc &) {
      raiseRecoverable(hostMemoryType,
                       "the host ran out of memory; free memory, then create the session again "
                       "(recovery action: IPU_RESET)",
                       RecoveryAction::IPU_RESET);
    }
  });
}

} // namespace popart::bindings
