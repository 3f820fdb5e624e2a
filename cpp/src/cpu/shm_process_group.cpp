#include "shm_process_group.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <memory>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace popart::popx {

namespace {

constexpr int64_t kMaxProcesses = 1024;
constexpr int64_t kSlotAlignment = 4096;

// Waits while *word == value, at most `ms` milliseconds (a wake-up may be spurious).
void futexWait(std::atomic<uint32_t> *word, uint32_t value, long ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000L};
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAIT, value, &t, nullptr, 0);
}

void futexWakeAll(std::atomic<uint32_t> *word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Maps shared memory object `name` of `bytes` bytes, creating it if needed
// (every process asks for the same size, so whoever comes first sizes it).
char *mapSegment(const std::string &name, size_t bytes) {
  const int fd = shm_open(name.c_str(), O_CREAT | O_RDWR, 0600);
  if (fd < 0) throw runtime_error("distributed session: cannot open shared memory '{}': {}", name, std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || (static_cast<size_t>(st.st_size) < bytes && ftruncate(fd, static_cast<off_t>(bytes)) != 0)) {
    const int e = errno;
    close(fd);
    throw runtime_error("distributed session: cannot size shared memory '{}' to {} bytes: {}", name, bytes,
                        std::strerror(e));
  }
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED)
    throw runtime_error("distributed session: cannot map {} bytes of shared memory '{}': {}", bytes, name,
                        std::strerror(e));
  return static_cast<char *>(p);
}

// The process has exited: it is gone, or a zombie its parent has not reaped yet.
bool hasExited(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  FILE *f = std::fopen(path, "r");
  if (!f) return false;
  char line[512] = {0};
  const size_t n = std::fread(line, 1, sizeof(line) - 1, f);
  std::fclose(f);
  const char *end = std::strrchr(line, ')');  // "pid (name) state ..."; the name may hold spaces
  return n > 0 && end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

} // namespace

// Zero-filled when created: an empty barrier, no failure.
struct ShmProcessGroup::Control {
  std::atomic<uint32_t> arrived;     // processes in the barrier of the current generation
  std::atomic<uint32_t> generation;  // barriers completed (the futex word)
  std::atomic<uint32_t> sleepers;    // processes sleeping on generation
  std::atomic<int32_t> failed;       // 1 + the rank of the first process that failed; 0: none
  char reason[512];                  // its error
  int32_t pids[kMaxProcesses];
  int64_t posted[kMaxProcesses];     // bytes of each process's last post (checked to agree)
};

ShmProcessGroup::ShmProcessGroup(int64_t rank, int64_t size, const std::string &name, double timeoutSeconds)
    : rank_(rank), size_(size), name_(name), timeout_(timeoutSeconds), slots_(static_cast<size_t>(size)) {
  if (size < 1 || size > kMaxProcesses || rank < 0 || rank >= size)
    throw error("shared-memory process group: rank {} of {} processes is invalid (at most {})", rank, size,
                kMaxProcesses);
  if (name.empty() || name[0] != '/' || name.find('/', 1) != std::string::npos || name.size() > 200)
    throw error("shared-memory process group: '{}' is not a valid name (one '/' then up to 199 characters)", name);
  controlBytes_ = sizeof(Control);
  control_ = reinterpret_cast<Control *>(mapSegment(name_, controlBytes_));
  control_->pids[rank_] = static_cast<int32_t>(getpid());
  mappedEverywhere(name_, control_, controlBytes_, "attaching the shared memory of the distributed session");
}

void ShmProcessGroup::mappedEverywhere(const std::string &name, void *p, size_t bytes, const char *what) {
  try {
    barrier(what);
  } catch (...) {
    shm_unlink(name.c_str());
    munmap(p, bytes);
    throw;
  }
  shm_unlink(name.c_str());  // every process has it mapped: nothing stays behind in /dev/shm
}

ShmProcessGroup::~ShmProcessGroup() {
  if (data_) munmap(data_, dataBytes_);
  if (control_) munmap(control_, controlBytes_);
}

std::string ShmProcessGroup::exitedRanks() const {
  std::string out;
  for (int64_t p = 0; p < size_; ++p) {
    const pid_t pid = control_->pids[p];
    if (p != rank_ && pid > 0 && hasExited(pid))
      out += (out.empty() ? "" : ", ") + std::to_string(p) + " (process " + std::to_string(pid) + ")";
  }
  return out;
}

void ShmProcessGroup::fail(const std::string &why) {
  int32_t none = 0;
  if (control_->failed.compare_exchange_strong(none, static_cast<int32_t>(rank_ + 1))) {
    std::strncpy(control_->reason, why.c_str(), sizeof(control_->reason) - 1);
    std::atomic_thread_fence(std::memory_order_release);
  }
  // Wakes the others, so that they see the failure now rather than at their next check.
  control_->generation.fetch_add(0, std::memory_order_release);
  futexWakeAll(&control_->generation);
  throw runtime_error("{}", why);
}

void ShmProcessGroup::barrier(const char *what) {
  Control &c = *control_;
  auto failedElsewhere = [&] {
    const int32_t f = c.failed.load(std::memory_order_acquire);
    return f != 0 && f != rank_ + 1;
  };
  auto raiseFailed = [&]() {
    std::atomic_thread_fence(std::memory_order_acquire);
    throw runtime_error("rank {}: {} failed: rank {} failed first: {}", rank_, what, c.failed.load() - 1,
                        std::string(c.reason, strnlen(c.reason, sizeof(c.reason))));
  };
  if (failedElsewhere()) raiseFailed();
  const uint32_t gen = c.generation.load(std::memory_order_acquire);
  if (c.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(size_)) {
    c.arrived.store(0, std::memory_order_relaxed);
    // Sequentially consistent (a full fence on x86): the generation must be visible before sleepers is read,
    // or a process that just went to sleep on the old generation would wait for its 10 ms time-out.
    c.generation.store(gen + 1, std::memory_order_seq_cst);
    if (c.sleepers.load(std::memory_order_seq_cst)) futexWakeAll(&c.generation);
    return;
  }
  auto passed = [&] { return c.generation.load(std::memory_order_acquire) != gen; };
  // The others usually arrive within microseconds: spin first, then sleep in short waits
  // between which the deadline, failures and exited processes are checked.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; !passed(); ++i) {
#if defined(__x86_64__)
    _mm_pause();
#endif
    if (i % 256 == 0 && std::chrono::steady_clock::now() - start > std::chrono::microseconds(100)) break;
  }
  const auto deadline = start + std::chrono::duration<double>(timeout_);
  auto nextCheck = start;
  while (!passed()) {
    if (failedElsewhere()) raiseFailed();
    const auto now = std::chrono::steady_clock::now();
    if (now >= nextCheck) {
      const std::string exited = exitedRanks();
      if (!exited.empty())
        fail("rank " + std::to_string(rank_) + ": " + what + " failed: rank(s) " + exited +
             " of the distributed session exited");
      if (now > deadline)
        fail("rank " + std::to_string(rank_) + ": the other processes did not join " + what + " within " +
             std::to_string(static_cast<int64_t>(timeout_)) +
             " s (POPART_DISTRIBUTED_TIMEOUT); one of them failed, hung or runs a different program");
      nextCheck = now + std::chrono::milliseconds(50);
    }
    c.sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (c.generation.load(std::memory_order_seq_cst) == gen) futexWait(&c.generation, gen, 10);
    c.sleepers.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ShmProcessGroup::reserve(int64_t bytes) {
  if (bytes <= slotBytes_) return;
  // Grows geometrically; every process asks for the same sizes in the same order (one program).
  const int64_t slot = (std::max(bytes, 2 * slotBytes_) + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
  const std::string name = name_ + ".d" + std::to_string(++dataSegments_);
  const auto total = static_cast<size_t>(slot * size_);
  char *data = mapSegment(name, total);
  mappedEverywhere(name, data, total, "mapping shared memory for a collective");
  if (data_) munmap(data_, dataBytes_);
  data_ = data;
  dataBytes_ = total;
  slotBytes_ = slot;
  for (int64_t p = 0; p < size_; ++p) slots_[static_cast<size_t>(p)] = data_ + p * slotBytes_;
}

const std::vector<const char *> &ShmProcessGroup::post(const void *in, int64_t bytes, const char *what) {
  reserve(std::max<int64_t>(bytes, 1));
  char *mine = data_ + rank_ * slotBytes_;
  if (in != mine && bytes > 0) std::memcpy(mine, in, static_cast<size_t>(bytes));
  control_->posted[rank_] = bytes;
  barrier(what);
  checkSameSize(bytes, what);
  return slots_;
}

void ShmProcessGroup::checkSameSize(int64_t bytes, const char *what) {
  for (int64_t p = 0; p < size_; ++p)
    if (control_->posted[p] != bytes)
      fail("rank " + std::to_string(rank_) + ": " + what + " of " + std::to_string(bytes) + " bytes met one of " +
           std::to_string(control_->posted[p]) + " bytes on rank " + std::to_string(p) +
           ": the processes run different programs");
}

std::shared_ptr<char> ShmProcessGroup::sharedMemory(int64_t bytes, const char *what) {
  if (bytes < 1) throw internal_error("shared memory of {} bytes", bytes);
  // Every process records its size before the barrier that maps the segment, and checks the others' after it
  // (before any process may post again).
  control_->posted[rank_] = bytes;
  const std::string name = name_ + ".m" + std::to_string(++sharedSegments_);
  const auto size = static_cast<size_t>(bytes);
  char *p = mapSegment(name, size);
  mappedEverywhere(name, p, size, what);
  try {
    checkSameSize(bytes, what);
    barrier(what);  // nobody posts a new size before every process has checked this one
  } catch (...) {
    munmap(p, size);
    throw;
  }
  return std::shared_ptr<char>(p, [size](char *q) { munmap(q, size); });
}

char *ShmProcessGroup::sendBuffer(int64_t bytes) {
  reserve(std::max<int64_t>(bytes, 1));
  return data_ + rank_ * slotBytes_;
}

void ShmProcessGroup::allGather(const void *in, int64_t bytes, void *out, const char *what) {
  const auto &all = post(in, bytes, what);
  for (int64_t p = 0; p < size_; ++p)
    std::memcpy(static_cast<char *>(out) + p * bytes, all[static_cast<size_t>(p)], static_cast<size_t>(bytes));
  barrier(what);
}

} // namespace popart::popx
