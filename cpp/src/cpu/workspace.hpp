// Op workspaces: temporaries a kernel needs only while its own steps run share one region.
#pragma once
#include <cstdint>

namespace popart::popx {

/// A region of address space whose pages become memory only when written, so that the
/// workspaces of all the ops of a program (each at most the largest one) cost the
/// largest one. Reserved on first use; sizes are fixed while kernels are created.
class Workspace {
public:
  Workspace() = default;
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  ~Workspace();
  /// [offset, offset + nbytes) of the region, usable; null when no region could be reserved.
  char *at(int64_t offset, int64_t nbytes);
  /// Bytes made usable so far (the largest extent handed out).
  int64_t bytes() const { return usable_; }

private:
  char *base_ = nullptr;
  int64_t reserved_ = 0, usable_ = 0;
  bool failed_ = false;
};

} // namespace popart::popx
