// Per-replica device data of a session (session/replica_data.hpp), as private
// methods of _SessionCore: PopXL's Session reads and writes replica-sharded
// and remote variables through them. Buffers are C-contiguous numpy arrays.
#include "bindings.hpp"
#include "numpy_util.hpp"
#include "popart/error.hpp"
#include "popart/session.hpp"
#include "session/replica_data.hpp"

namespace popart::bindings {
namespace {

void *writable(py::array &a, const char *what) {
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw error("{}: the destination must be a writeable C-contiguous array", what);
  return a.mutable_data();
}

} // namespace

void bindReplicaData(py::module_ &m) {
  auto cls = py::reinterpret_borrow<py::class_<Session>>(m.attr("_SessionCore"));
  cls.def("_readReplicaTensor", [](const Session &s, const std::string &id, int64_t replica, py::array out) {
       readReplicaTensor(s, id, replica, writable(out, "_readReplicaTensor"), static_cast<int64_t>(out.nbytes()));
     }, py::arg("tensorId"), py::arg("replica"), py::arg("out"),
     "Copies main-graph tensor `tensorId` of local replica `replica` into `out` (its size in bytes).")
      .def("_writeReplicaTensor", [](Session &s, const std::string &id, int64_t replica, const py::array &data) {
        py::array a = contiguous(data, "_writeReplicaTensor");
        writeReplicaTensor(s, id, replica, a.data(), static_cast<int64_t>(a.nbytes()));
      }, py::arg("tensorId"), py::arg("replica"), py::arg("data"),
      "Sets main-graph tensor `tensorId` of local replica `replica` to the bytes of `data`.")
      .def("_readRemoteEntry", [](const Session &s, int64_t buffer, int64_t index, int64_t replica,
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
      .def("_localReplicas", [](const Session &s) { return localReplicas(s); },
           "The replicas this process runs (0 before prepareDevice()).");
}

} // namespace popart::bindings
