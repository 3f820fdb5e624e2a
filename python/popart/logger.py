"""popart.getLogger(module): per-module log level control.

Levels: TRACE, DEBUG, INFO, WARN, ERR, CRITICAL, OFF. Modules: popart (the
default, applies to all when set through getLogger()), session, ir, devicex,
transform, pattern, builder, op, opx, ces, python."""
import popart_core

_MODULES = ("popart", "session", "ir", "devicex", "transform", "pattern",
            "builder", "op", "opx", "ces", "python")


class Logger:
    def __init__(self, module: str = "all"):
        if module not in _MODULES and module != "all":
            raise popart_core.popart_exception(
                f"unknown log module '{module}' (expected one of {', '.join(_MODULES)})")
        self.module = module

    def _targets(self):
        return _MODULES if self.module == "all" else (self.module,)

    def setLevel(self, level: str) -> None:
        for m in self._targets():
            popart_core._setLogLevel(m, level)

    def getLevel(self) -> str:
        return popart_core._getLogLevel(self._targets()[0]).upper()

    def _log(self, level, msg):
        popart_core._log("python" if self.module == "all" else self.module, level, str(msg))

    def trace(self, msg): self._log("trace", msg)
    def debug(self, msg): self._log("debug", msg)
    def info(self, msg): self._log("info", msg)
    def warn(self, msg): self._log("warn", msg)
    warning = warn
    def error(self, msg): self._log("err", msg)
    def critical(self, msg): self._log("critical", msg)


def getLogger(module: str = "all") -> Logger:
    """Logger for one module; with no argument, setLevel applies to every module."""
    return Logger(module)
