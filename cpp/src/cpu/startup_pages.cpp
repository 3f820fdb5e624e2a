#include "startup_pages.hpp"
#include "popart/logging.hpp"
#include <cstdlib>
#include <cstring>
#include <link.h>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace popart::popx {
namespace {

bool isReleased(const char *path) {
  const char *name = std::strrchr(path, '/');
  name = name ? name + 1 : path;
  for (const char *prefix : {"libdnnl.", "libpopart.", "popart_core."})
    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

// Unmaps the executable segments of the libraries isReleased names; *bytes
// counts the address range released.
int releaseObject(dl_phdr_info *info, size_t, void *bytes) {
  if (!info->dlpi_name || !isReleased(info->dlpi_name)) return 0;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || (ph.p_flags & PF_W)) continue;
    const uintptr_t begin = (info->dlpi_addr + ph.p_vaddr + page - 1) & ~(page - 1);
    const uintptr_t end = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz) & ~(page - 1);
    if (end > begin && madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED) == 0)
      *static_cast<size_t *>(bytes) += end - begin;
  }
  return 0;
}

} // namespace

void releaseStartupPages() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char *keep = std::getenv("POPART_KEEP_STARTUP_PAGES");
    if (keep && std::strcmp(keep, "0") != 0) return;
    size_t bytes = 0;
    dl_iterate_phdr(releaseObject, &bytes);
    logging::devicex::debug("start-up code pages released from {} bytes of library code", bytes);
  });
}

} // namespace popart::popx
