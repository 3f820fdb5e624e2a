#include "atomic_file.hpp"
#include "popart/error.hpp"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace popart {
namespace {

[[noreturn]] void fail(const std::string &what, const std::string &path, const char *step, int err) {
  throw error("{}: cannot write '{}' ({} failed): {}", what, path, step, std::strerror(err));
}

void writeAll(int fd, const std::string &bytes, const std::string &what, const std::string &path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(what, path, "write", n < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(n);
  }
}

std::string folderOf(const std::string &path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void writeInPlace(const std::string &path, const std::string &bytes, const std::string &what) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(what, path, "open", errno);
  try {
    writeAll(fd, bytes, what, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(what, path, "close", errno);
}

} // namespace

void writeFileAtomically(const std::string &path, const std::string &bytes, const std::string &what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw error("{}: '{}' is a directory", what, path);
    writeInPlace(path, bytes, what);
    return;
  }
  std::string tmp = path + ".tmpXXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(what, path, "creating a temporary file in its folder", errno);
  try {
    writeAll(fd, bytes, what, tmp);
    if (::fsync(fd) != 0) fail(what, tmp, "fsync", errno);
    if (::fchmod(fd, 0644) != 0) fail(what, tmp, "chmod", errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(what, tmp, "close", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail(what, path, "rename", err);
  }
  int dir = ::open(folderOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // best effort: makes the rename itself durable
    ::close(dir);
  }
}

} // namespace popart
