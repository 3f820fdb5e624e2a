// The processes of a distributed session when they all run on one host: their
// collectives go through POSIX shared memory instead of MPI messages. Every
// process maps a control segment (a barrier, the processes' ids, an abort
// record) and a data segment holding one slot per process; a collective copies
// this process's contribution into its slot, and every process reads the
// others' slots in place (post / done).
//
// The segments are named after a name the processes agreed on (unique to the
// job) and unlinked as soon as every process has mapped them, so nothing is
// left in /dev/shm when a process dies. A process that waits for the others
// fails with an error naming the rank when a process has exited, another one
// aborted, or nobody came within the timeout.
#pragma once
#include "process_group.hpp"
#include <cstddef>
#include <string>
#include <vector>

namespace popart::popx {

class ShmProcessGroup final : public ProcessGroup {
public:
  /// Maps the segments `name` (the same on every process) as `rank` of `size`
  /// processes, waiting at most `timeoutSeconds` for the others.
  ShmProcessGroup(int64_t rank, int64_t size, const std::string &name, double timeoutSeconds);
  ~ShmProcessGroup() override;
  ShmProcessGroup(const ShmProcessGroup &) = delete;
  ShmProcessGroup &operator=(const ShmProcessGroup &) = delete;

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }
  std::string transport() const override { return "shared memory"; }
  using ProcessGroup::allGather;
  void allGather(const void *in, int64_t bytes, void *out, const char *what) override;
  const std::vector<const char *> &post(const void *in, int64_t bytes) override { return post(in, bytes, "a collective"); }
  void done() override { barrier("a collective"); }
  char *sendBuffer(int64_t bytes) override;
  void barrier(const char *what) override;
  std::shared_ptr<char> sharedMemory(int64_t bytes, const char *what) override;

private:
  struct Control;
  const std::vector<const char *> &post(const void *in, int64_t bytes, const char *what);
  /// Waits until every process has mapped segment `name` (this process at `p`), then unlinks it; on a failure
  /// unmaps it too.
  void mappedEverywhere(const std::string &name, void *p, size_t bytes, const char *what);
  /// The slots hold at least `bytes` each (a new data segment when they do not).
  void reserve(int64_t bytes);
  /// Throws unless every process gave `bytes` (recorded before the last barrier).
  void checkSameSize(int64_t bytes, const char *what);
  /// Throws after recording `why` for the other processes.
  [[noreturn]] void fail(const std::string &why);
  /// Ranks whose process has exited ("" when all run).
  std::string exitedRanks() const;

  int64_t rank_, size_;
  std::string name_;
  double timeout_;
  Control *control_ = nullptr;
  size_t controlBytes_ = 0;
  char *data_ = nullptr;
  size_t dataBytes_ = 0;
  int64_t slotBytes_ = 0;
  int64_t dataSegments_ = 0;
  int64_t sharedSegments_ = 0;
  std::vector<const char *> slots_;
};

} // namespace popart::popx
