// The process group of distributed sessions: popart.distributed registers its
// mpi4py all-gather here; the executor's ProcessCommunicator calls it from a
// replica thread (run() released the GIL, the call takes it).
#include "bindings.hpp"
#include "cpu/communicator.hpp"
#include "cpu/executor.hpp"
#include "cpu/process_group.hpp"
#include "cpu/shm_process_group.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/error.hpp"
#include "popart/tensor.hpp"
#include <cstring>

namespace popart::bindings {
namespace {

class PyProcessGroup final : public popx::ProcessGroup {
public:
  PyProcessGroup(int64_t rank, int64_t size, py::function allGather)
      : rank_(rank), size_(size), allGather_(std::move(allGather)) {}
  ~PyProcessGroup() override {
    if (!Py_IsInitialized()) {  // at process exit, after the interpreter: leak the reference
      allGather_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    allGather_ = py::function();
  }
  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }
  std::string transport() const override { return "MPI"; }
  using popx::ProcessGroup::allGather;
  void allGather(const void *in, int64_t bytes, void *out, const char *) override {
    py::gil_scoped_acquire gil;
    try {
      allGather_(py::memoryview::from_memory(const_cast<void *>(in), bytes, true),
                 py::memoryview::from_memory(out, bytes * size_, false));
    } catch (py::error_already_set &e) {
      throw runtime_error("{}", e.what());
    }
  }

private:
  int64_t rank_, size_;
  py::function allGather_;
};

// The device buffer of variable `id` on local replica `r` of a prepared session.
popx::TensorView replicaVariable(Session &s, const TensorId &id, int64_t r, const char *what) {
  if (!s.isPrepared()) throw error("{}: session '{}' needs prepareDevice() first", what, s.getName());
  popx::Executor &ex = s.getExecutor();
  if (r < 0 || r >= ex.localReplicas())
    throw error("{}: local replica {} is out of range (session '{}' runs {} replica(s) in this process)", what, r,
                s.getName(), ex.localReplicas());
  const Tensor *t = s.getIr().getTensor(id);
  if (t->tensorType() != TensorType::Variable) throw error("{}: tensor '{}' is not a variable", what, id);
  return ex.replica(r).view(t);
}

} // namespace

void bindDistributed(py::module_ &m) {
  m.def("_replicaVariableData", [](Session &s, const TensorId &id, int64_t r) {
    popx::TensorView v = replicaVariable(s, id, r, "_replicaVariableData");
    return py::bytes(static_cast<const char *>(v.raw()), static_cast<size_t>(v.nbytes()));
  }, py::arg("session"), py::arg("id"), py::arg("localReplica"),
        "The bytes of variable `id` on local replica `localReplica` of the session's device.");
  m.def("_setReplicaVariableData", [](Session &s, const TensorId &id, int64_t r, const py::buffer &data) {
    popx::TensorView v = replicaVariable(s, id, r, "_setReplicaVariableData");
    py::buffer_info b = data.request();
    if (b.size * b.itemsize != v.nbytes())
      throw error("_setReplicaVariableData: {} bytes given for variable '{}', which has {} ({})",
                  b.size * b.itemsize, id, v.nbytes(), v.info().toString());
    std::memcpy(v.raw(), b.ptr, static_cast<size_t>(v.nbytes()));
    s.getExecutor().replica(r).markHostWrite();
  }, py::arg("session"), py::arg("id"), py::arg("localReplica"), py::arg("data"),
        "Writes `data` (C-contiguous, the variable's bytes) to variable `id` on local replica `localReplica`.");
  m.def("_setProcessGroup", [](int64_t rank, int64_t size, py::function allGather) {
    if (size < 1 || rank < 0 || rank >= size) throw error("process group: rank {} of {} is invalid", rank, size);
    popx::setProcessGroup(std::make_shared<PyProcessGroup>(rank, size, std::move(allGather)));
  }, py::arg("rank"), py::arg("size"), py::arg("allGather"),
        "Registers allGather(send: memoryview, recv: memoryview) of this process's group (rank of size).");
  m.def("_setShmProcessGroup", [](int64_t rank, int64_t size, const std::string &name, double timeout) {
    std::shared_ptr<popx::ProcessGroup> group;
    {
      py::gil_scoped_release release;  // waits for the other processes to attach
      group = std::make_shared<popx::ShmProcessGroup>(rank, size, name, timeout);
    }
    popx::setProcessGroup(std::move(group));
  }, py::arg("rank"), py::arg("size"), py::arg("name"), py::arg("timeout"),
        "Registers a process group of `size` processes on this host exchanging through the POSIX shared memory "
        "`name` (the same on every process), waiting at most `timeout` seconds for the others.");
  m.def("_processGroupAllGather", [](const py::buffer &send, const py::buffer &recv, const std::string &what) {
    auto group = popx::processGroup();
    if (!group) throw error("no process group: call popart.distributed.setup() first");
    py::buffer_info in = send.request(), out = recv.request(true);
    const int64_t bytes = in.size * in.itemsize;
    if (out.size * out.itemsize != bytes * group->size())
      throw error("all_gather: the receive buffer has {} bytes; {} processes x {} bytes need {}",
                  out.size * out.itemsize, group->size(), bytes, bytes * group->size());
    py::gil_scoped_release release;
    group->allGather(in.ptr, bytes, out.ptr, what.c_str());
  }, py::arg("send"), py::arg("recv"), py::arg("what") = "a collective",
        "recv := every process's `send` bytes in rank order, through the registered process group (`what` names "
        "the exchange in errors).");
  m.def("_processGroupTransport", [] {
    auto group = popx::processGroup();
    return group ? group->transport() : std::string();
  }, "What carries the registered process group's data ('' when none is registered).");
  m.def("_attachHostAllReduce", [](Session &s) {
    if (!s.getIr().getSessionOptions().hostAllReduce)
      throw error("session '{}' was created without SessionOptions.hostAllReduce = True: its gradients have no "
                  "host all-reduce to attach to; set the option before creating the session", s.getName());
    auto group = popx::processGroup();
    if (!group) throw error("no process group: call hvd.init() (popart.distributed.setup()) first");
    s.getExecutor().communicator().setHostGroup(group);
  }, py::arg("session"), "Averages the session's gradients over the processes (hostAllReduce).");
  m.def("_broadcastWeightsOverProcesses", [](Session &s, int64_t root) {
    if (!s.isPrepared()) throw error("broadcast_weights: session '{}' needs prepareDevice() first", s.getName());
    auto group = popx::processGroup();
    if (!group) throw error("no process group: call hvd.init() (popart.distributed.setup()) first");
    py::gil_scoped_release release;
    s.getExecutor().broadcastWeightsOverProcesses(*group, root);
  }, py::arg("session"), py::arg("root_rank") = 0);
  m.def("_clearProcessGroup", [] { popx::setProcessGroup(nullptr); });
  m.def("_hasProcessGroup", [] { return popx::processGroup() != nullptr; });
}

} // namespace popart::bindings
