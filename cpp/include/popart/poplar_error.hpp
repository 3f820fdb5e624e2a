// The execution-layer errors PopART surfaces from Poplar and PopLibs
// (poplar_exception ... poplar_recoverable_runtime_error with a RecoveryAction).
#pragma once
#include <stdexcept>
#include <string>

namespace popart {

/// What a system error asks of the user before the device (here: a new session) is used again.
enum class RecoveryAction { IPU_RESET = 0, LINK_RESET, PARTITION_RESET, FULL_RESET, POWER_CYCLE };

/// Errors of the execution layer, as PopART surfaces Poplar's. On the CPU a
/// poplar_recoverable_runtime_error is raised when the host runs out of memory while a
/// session prepares or runs (recovery: free memory, then create the session again).
class poplar_exception : public std::runtime_error {
public:
  explicit poplar_exception(const std::string &what) : std::runtime_error(what) {}
};
class poplar_runtime_error : public poplar_exception {
public:
  using poplar_exception::poplar_exception;
};
class poplar_application_runtime_error : public poplar_runtime_error {
public:
  using poplar_runtime_error::poplar_runtime_error;
};
class poplar_system_runtime_error : public poplar_runtime_error {
public:
  using poplar_runtime_error::poplar_runtime_error;
};
class poplar_recoverable_runtime_error : public poplar_system_runtime_error {
public:
  poplar_recoverable_runtime_error(const std::string &what, RecoveryAction action)
      : poplar_system_runtime_error(what), recoveryAction(action) {}
  RecoveryAction recoveryAction;
};
class poplar_unrecoverable_runtime_error : public poplar_system_runtime_error {
public:
  using poplar_system_runtime_error::poplar_system_runtime_error;
};
class poplar_unknown_runtime_error : public poplar_runtime_error {
public:
  using poplar_runtime_error::poplar_runtime_error;
};
/// Errors of the kernel library layer (PopART: PopLibs).
class poplibs_exception : public std::runtime_error {
public:
  explicit poplibs_exception(const std::string &what) : std::runtime_error(what) {}
};

} // namespace popart
