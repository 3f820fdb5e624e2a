// PopART's exception hierarchy. `error` is a user mistake, `internal_error` a
// broken invariant; Python sees them as popart_exception and
// popart_internal_exception (runtime_error and memory_allocation_err derive
// from error, as in PopART).
#pragma once
#include "popart/format.hpp"
#include <stdexcept>

namespace popart {

class error : public std::runtime_error {
public:
  explicit error(const std::string &what) : std::runtime_error(what) {}
  template <class A, class... Args>
  error(std::string_view fmt, const A &a, const Args &...args)
      : std::runtime_error(formatMessage(fmt, {FormatArg(a), FormatArg(args)...})) {}
};

class internal_error : public error {
public:
  using error::error;
};

/// Raised while a session runs (bad step input, failed host callback, ...).
class runtime_error : public error {
public:
  using error::error;
};

/// Raised when the memory plan does not fit; carries the summary report.
class memory_allocation_err : public error {
public:
  using error::error;
  virtual std::string getSummaryReport() const { return summary_; }
  virtual std::string getProfilePath() const { return ""; }
  void setSummaryReport(std::string s) { summary_ = std::move(s); }

private:
  std::string summary_;
};

} // namespace popart
