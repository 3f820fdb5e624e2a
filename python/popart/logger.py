"""popart.getLogger(module): per-module log level control.

Levels: TRACE, DEBUG, INFO, WARN, ERR, CRITICAL, OFF. Modules: popart (the
default, applies to all when set through getLogger()), session, ir, devicex,
transform, pattern, builder, op, opx, ces, python."""
import popart_core

_MODULES = ("popart", "session", "ir", "devicex", "transform", "pattern",
            "builder", "op", "opx", "ces", "python")


class Logger:
    """Log level control and log output for one module of popart (or all of them).

    Messages go where POPART_LOG_DEST says (stderr by default) when their level is
    at or above the module's level."""

    def __init__(self, module: str = "all"):
        if module not in _MODULES and module != "all":
            raise popart_core.popart_exception(
                f"unknown log module '{module}' (expected one of {', '.join(_MODULES)})")
        self.module = module

    def _targets(self):
        return _MODULES if self.module == "all" else (self.module,)

    def setLevel(self, level: str) -> None:
        """Set the level (TRACE, DEBUG, INFO, WARN, ERR, CRITICAL or OFF) of the module, or of all."""
        for m in self._targets():
            popart_core._setLogLevel(m, level)

    def getLevel(self) -> str:
        """The module's level as an upper-case name (the first module's for 'all')."""
        return popart_core._getLogLevel(self._targets()[0]).upper()

    def _log(self, level, msg):
        popart_core._log("python" if self.module == "all" else self.module, level, str(msg))

    def trace(self, msg):
        """Log `msg` at TRACE level (the most detailed)."""
        self._log("trace", msg)

    def debug(self, msg):
        """Log `msg` at DEBUG level."""
        self._log("debug", msg)

    def info(self, msg):
        """Log `msg` at INFO level."""
        self._log("info", msg)

    def warn(self, msg):
        """Log `msg` at WARN level."""
        self._log("warn", msg)

    warning = warn

    def error(self, msg):
        """Log `msg` at ERR level."""
        self._log("err", msg)

    def critical(self, msg):
        """Log `msg` at CRITICAL level."""
        self._log("critical", msg)


def getLogger(module: str = "all") -> Logger:
    """Logger for one module; with no argument, setLevel applies to every module."""
    return Logger(module)
