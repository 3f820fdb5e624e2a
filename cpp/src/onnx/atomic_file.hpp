// Crash-safe file writes: the bytes go to a temporary file in the destination
// folder, which is flushed, fsynced and renamed over the destination, so a
// crash or full disk mid-save never destroys the previous file. Every I/O
// error is reported as a popart error naming the file.
#pragma once
#include <string>

namespace popart {
/// Writes `bytes` to `path` atomically; `what` names the caller in errors.
/// Non-regular destinations (devices such as /dev/full, pipes) are written in place.
void writeFileAtomically(const std::string &path, const std::string &bytes, const std::string &what);
} // namespace popart
