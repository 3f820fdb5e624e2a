// Replicas spread over processes (global replication): this process's replica
// threads exchange through shared memory, and its first replica thread
// exchanges the process's contributions with the other processes through the
// ProcessGroup (one post per collective: the contributions are read where the
// group put them, in shared memory when the processes share a host).
#pragma once
#include "communicator.hpp"
#include "process_group.hpp"
#include <memory>

namespace popart::popx {

class ProcessCommunicator final : public Communicator {
public:
  /// Checks with the other processes that replicas tile [0, globalReplicas)
  /// and that every process runs the same program (`fingerprint`, `what`
  /// describing it); throws an error naming the processes that differ.
  ProcessCommunicator(int64_t localReplicas, int64_t globalReplicas, int64_t globalOffset,
                      std::shared_ptr<ProcessGroup> group);
  void checkSameProgram(uint64_t fingerprint, const std::string &what);
  /// out = every global replica's `bytes` bytes in global replica order, from
  /// `local[j]` of this process's replica j. Called by one thread (not the
  /// replica threads), the same call on every process.
  void gatherReplicas(const std::vector<const char *> &local, int64_t bytes, char *out);
  /// Memory every process maps (ProcessGroup::sharedMemory); null when the group has none.
  std::shared_ptr<char> sharedMemory(int64_t bytes, const char *what);
  /// Waits for the other processes (called by one thread, not the replica threads).
  void barrier(const char *what);
  void abort(const std::string &why) override { barrier_.abort(why); }
  void reset() override { barrier_.reset(); }

protected:
  const std::vector<const char *> &exchange(int64_t local, const void *in, int64_t bytes) override;
  void release(int64_t local) override;
  char *staging(int64_t local, int64_t bytes) override;
  void localBarrier() override { barrier_.wait(); }

private:
  std::shared_ptr<ProcessGroup> group_;
  Barrier barrier_;
  std::vector<const void *> posted_;
  std::vector<char> send_;
  std::vector<int64_t> slotOf_;  // global replica -> process x localReplicas + its local index
  std::vector<const char *> all_;
};

} // namespace popart::popx
