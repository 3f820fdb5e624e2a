// Per-module logging. Level and destination come from POPART_LOG_LEVEL,
// POPART_LOG_DEST (stdout, stderr or a file path) and POPART_LOG_CONFIG (a JSON
// file {"module": "level", ...}); setLogLevel changes them at run time.
// Line format: "[HH:MM:SS.mmm] [popart:<module>] [<level>] <message>".
#pragma once
#include "popart/format.hpp"

namespace popart::logging {

enum class Level { Trace = 0, Debug, Info, Warn, Err, Critical, Off, N };
enum class Module {
  popart = 0, session, ir, devicex, transform, pattern, builder, op, opx, ces, python, none, N
};

bool shouldLog(Module m, Level l);
void log(Module m, Level l, const std::string &msg);
void setLogLevel(Module m, Level l);
Level getLogLevel(Module m);
/// Flushes the destination (called before the process leaves an API call).
void flush(Module m);

Level levelFromString(const std::string &name);   // "TRACE", "info", "ERR", ...
std::string levelToString(Level l);
Module moduleFromString(const std::string &name); // "popart", "ir", ...
std::string moduleToString(Module m);

template <class... A>
void logf(Module m, Level l, std::string_view fmt, const A &...args) {
  if (shouldLog(m, l)) log(m, l, formatMessage(fmt, {FormatArg(args)...}));
}

#define POPART_LOG_FUNCTIONS(NS, MOD)                                                             \
  namespace NS {                                                                                  \
  template <class... A> void trace(std::string_view f, const A &...a) { logf(MOD, Level::Trace, f, a...); } \
  template <class... A> void debug(std::string_view f, const A &...a) { logf(MOD, Level::Debug, f, a...); } \
  template <class... A> void info(std::string_view f, const A &...a) { logf(MOD, Level::Info, f, a...); }   \
  template <class... A> void warn(std::string_view f, const A &...a) { logf(MOD, Level::Warn, f, a...); }   \
  template <class... A> void err(std::string_view f, const A &...a) { logf(MOD, Level::Err, f, a...); }     \
  template <class... A> void crit(std::string_view f, const A &...a) { logf(MOD, Level::Critical, f, a...); } \
  }
POPART_LOG_FUNCTIONS(session, Module::session)
POPART_LOG_FUNCTIONS(ir, Module::ir)
POPART_LOG_FUNCTIONS(devicex, Module::devicex)
POPART_LOG_FUNCTIONS(transform, Module::transform)
POPART_LOG_FUNCTIONS(pattern, Module::pattern)
POPART_LOG_FUNCTIONS(builder, Module::builder)
POPART_LOG_FUNCTIONS(op, Module::op)
POPART_LOG_FUNCTIONS(opx, Module::opx)
POPART_LOG_FUNCTIONS(ces, Module::ces)
POPART_LOG_FUNCTIONS(python, Module::python)
#undef POPART_LOG_FUNCTIONS

template <class... A> void trace(std::string_view f, const A &...a) { logf(Module::popart, Level::Trace, f, a...); }
template <class... A> void debug(std::string_view f, const A &...a) { logf(Module::popart, Level::Debug, f, a...); }
template <class... A> void info(std::string_view f, const A &...a) { logf(Module::popart, Level::Info, f, a...); }
template <class... A> void warn(std::string_view f, const A &...a) { logf(Module::popart, Level::Warn, f, a...); }
template <class... A> void err(std::string_view f, const A &...a) { logf(Module::popart, Level::Err, f, a...); }

} // namespace popart::logging
