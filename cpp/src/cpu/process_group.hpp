// The processes of a distributed session (global replication): the transport
// the ProcessCommunicator runs over. Two implementations: MPI (in the Python
// package, mpi4py, registered through the bindings when a session with
// enableDistributedReplicatedGraphs is created) and shared memory between the
// processes of one host (shm_process_group.hpp, which the Python package
// picks when every process runs on its host). C++ programs may register their own.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace popart::popx {

class ProcessGroup {
public:
  virtual ~ProcessGroup() = default;
  virtual int64_t rank() const = 0;
  virtual int64_t size() const = 0;
  /// What carries the data ("MPI", "shared memory", ...), for reports.
  virtual std::string transport() const { return "custom"; }
  /// out = every process's `bytes` bytes in rank order (size() * bytes). Throws
  /// (never hangs for ever) when a process does not take part; `what` names
  /// the exchange in the error.
  virtual void allGather(const void *in, int64_t bytes, void *out, const char *what) = 0;
  void allGather(const void *in, int64_t bytes, void *out) { allGather(in, bytes, out, "a collective"); }
  /// The same exchange without copying out: pointers to every process's
  /// `bytes` bytes in rank order, valid until done(), which every process
  /// calls once it has read them. By default an allGather into a buffer.
  virtual const std::vector<const char *> &post(const void *in, int64_t bytes);
  virtual void done() {}
  /// Where this process may write the `bytes` bytes of its next post, which
  /// then copies nothing; null when the group has no such place. Every process
  /// calls it at the same point of its program (it may wait for the others).
  virtual char *sendBuffer(int64_t bytes) { return nullptr; }
  /// Waits until every process has called barrier (`what` names it in errors).
  virtual void barrier(const char *what);
  /// `bytes` bytes of zero-filled memory that every process maps (the same
  /// memory in each), unmapped when the last copy of the pointer goes. Every
  /// process calls it at the same point of its program with the same size.
  /// Null when the processes share no memory (MPI across hosts).
  virtual std::shared_ptr<char> sharedMemory(int64_t bytes, const char *what) { return nullptr; }

private:
  std::vector<char> gathered_;
  std::vector<const char *> pointers_;
};

/// The process group of this process (null until one is registered).
std::shared_ptr<ProcessGroup> processGroup();
void setProcessGroup(std::shared_ptr<ProcessGroup> group);

} // namespace popart::popx
