#include "cpu/workspace.hpp"
#include "popart/error.hpp"
#include <sys/mman.h>
#include <unistd.h>

namespace popart::popx {
namespace {

constexpr int64_t kReserve = int64_t{1} << 36;  // 64 GiB of address space, no memory until used

int64_t pageAlign(int64_t n) {
  const int64_t page = sysconf(_SC_PAGESIZE);
  return (n + page - 1) / page * page;
}

} // namespace

Workspace::~Workspace() {
  if (base_) munmap(base_, static_cast<size_t>(reserved_));
}

char *Workspace::at(int64_t offset, int64_t nbytes) {
  if (failed_) return nullptr;
  if (!base_) {
    void *p = mmap(nullptr, static_cast<size_t>(kReserve), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return failed_ = true, nullptr;  // e.g. a limit on address space: callers allocate instead
    base_ = static_cast<char *>(p);
    reserved_ = kReserve;
  }
  const int64_t end = pageAlign(offset + nbytes);
  if (end > reserved_) return nullptr;
  if (end > usable_) {
    if (mprotect(base_ + usable_, static_cast<size_t>(end - usable_), PROT_READ | PROT_WRITE) != 0)
      throw memory_allocation_err("cannot make {} bytes of op workspace usable", end);
    usable_ = end;
  }
  return base_ + offset;
}

} // namespace popart::popx
