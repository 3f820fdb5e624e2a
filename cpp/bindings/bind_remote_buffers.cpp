// The remote buffers of a session's replicas (session/remote_buffers.hpp), as
// private methods of _SessionCore: PopXL's Session reads and writes remote
// and replica-sharded variables through them. Buffers are C-contiguous numpy
// arrays.
#include "bindings.hpp"
#include "numpy_util.hpp"
#include "popart/error.hpp"
#include "popart/session.hpp"
#include "session/remote_buffers.hpp"

namespace popart::bindings {
namespace {

void *writable(py::array &a, const char *what) {
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw error("{}: the destination must be a writeable C-contiguous array", what);
  return a.mutable_data();
}

} // namespace

void bindRemoteBuffers(py::module_ &m) {
  auto cls = py::reinterpret_borrow<py::class_<Session>>(m.attr("_SessionCore"));
  cls.def("_readRemoteEntry", [](const Session &s, int64_t buffer, int64_t index, int64_t replica,
                                  const TensorInfo &entry, py::array out) {
        if (static_cast<int64_t>(out.nbytes()) != entry.nbytes())
          throw error("_readRemoteEntry: {} bytes for an entry of {}", out.nbytes(), entry.toString());
        readRemoteEntry(s, buffer, index, replica, entry, writable(out, "_readRemoteEntry"));
      }, py::arg("bufferId"), py::arg("index"), py::arg("replica"), py::arg("entry"), py::arg("out"),
      "Copies entry `index` of remote buffer `bufferId` on local replica `replica` into `out`.")
      .def("_writeRemoteEntry", [](Session &s, int64_t buffer, int64_t index, int64_t replica,
                                   const TensorInfo &entry, const py::array &data) {
        py::array a = contiguous(data, "_writeRemoteEntry");
        if (static_cast<int64_t>(a.nbytes()) != entry.nbytes())
          throw error("_writeRemoteEntry: {} bytes for an entry of {}", a.nbytes(), entry.toString());
        writeRemoteEntry(s, buffer, index, replica, entry, a.data());
      }, py::arg("bufferId"), py::arg("index"), py::arg("replica"), py::arg("entry"), py::arg("data"),
      "Sets entry `index` of remote buffer `bufferId` on local replica `replica` to the bytes of `data`.")
      .def("_bindRemoteEntry", [](Session &s, int64_t buffer, int64_t index, const std::string &id) {
        bindRemoteEntry(s, buffer, index, id);
      }, py::arg("bufferId"), py::arg("index"), py::arg("tensorId"),
      "On every local replica, entry `index` of remote buffer `bufferId` is variable `tensorId`'s device buffer.");
}

} // namespace popart::bindings
