// The processes of a distributed session (global replication): the transport
// the ProcessCommunicator runs over. The MPI implementation lives in the
// Python package (mpi4py, registered through the bindings when a session with
// enableDistributedReplicatedGraphs is created); C++ programs may register
// their own.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace popart::popx {

class ProcessGroup {
public:
  virtual ~ProcessGroup() = default;
  virtual int64_t rank() const = 0;
  virtual int64_t size() const = 0;
  /// out = every process's `bytes` bytes in rank order (size() * bytes). Throws
  /// (never hangs for ever) when a process does not take part.
  virtual void allGather(const void *in, int64_t bytes, void *out) = 0;
};

/// The process group of this process (null until one is registered).
std::shared_ptr<ProcessGroup> processGroup();
void setProcessGroup(std::shared_ptr<ProcessGroup> group);

} // namespace popart::popx
