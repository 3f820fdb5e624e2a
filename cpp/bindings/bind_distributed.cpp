// The process group of distributed sessions: popart.distributed registers its
// mpi4py all-gather here; the executor's ProcessCommunicator calls it from a
// replica thread (run() released the GIL, the call takes it).
#include "bindings.hpp"
#include "cpu/communicator.hpp"
#include "cpu/executor.hpp"
#include "cpu/process_group.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/error.hpp"

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
  void allGather(const void *in, int64_t bytes, void *out) override {
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

} // namespace

void bindDistributed(py::module_ &m) {
  m.def("_setProcessGroup", [](int64_t rank, int64_t size, py::function allGather) {
    if (size < 1 || rank < 0 || rank >= size) throw error("process group: rank {} of {} is invalid", rank, size);
    popx::setProcessGroup(std::make_shared<PyProcessGroup>(rank, size, std::move(allGather)));
  }, py::arg("rank"), py::arg("size"), py::arg("allGather"),
        "Registers allGather(send: memoryview, recv: memoryview) of this process's group (rank of size).");
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
