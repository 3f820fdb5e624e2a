// C++ exceptions -> Python exception classes. Messages are decoded with
// backslash escapes so names holding invalid UTF-8 (from a model file) still
// give a popart error rather than a UnicodeDecodeError; std::bad_alloc becomes
// popart_memory_allocation_error.
#include "bindings.hpp"
#include "popart/error.hpp"
#include <cstring>
#include <new>

namespace popart::bindings {
namespace {

PyObject *baseType, *internalType, *runtimeType, *memoryType;

void raise(PyObject *type, const char *what) {
  PyObject *msg = PyUnicode_DecodeUTF8(what, static_cast<Py_ssize_t>(std::strlen(what)), "backslashreplace");
  PyErr_SetObject(type, msg);
  Py_XDECREF(msg);
}

PyObject *newType(py::module_ &m, const char *name, PyObject *base) {
  std::string full = std::string(PyModule_GetName(m.ptr())) + "." + name;
  PyObject *t = PyErr_NewException(full.c_str(), base, nullptr);
  if (!t) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(t));
  return t;  // the module and this reference keep it alive for the process
}

} // namespace

void bindErrors(py::module_ &m) {
  baseType = newType(m, "popart_exception", PyExc_RuntimeError);
  internalType = newType(m, "popart_internal_exception", baseType);
  runtimeType = newType(m, "popart_runtime_error", baseType);
  memoryType = newType(m, "popart_memory_allocation_error", baseType);
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
    } catch (const std::bad_alloc &) {
      raise(memoryType, "out of memory: the host cannot allocate the memory this needs");
    }
  });
}

} // namespace popart::bindings
