"""Python side of PopART's error classes."""
import popart_core


class OutOfMemoryException(popart_core.popart_exception):
    """Raised when the planned memory of a session does not fit.

    Wraps the popart_core memory allocation error and keeps its report."""

    def __init__(self, e):
        super().__init__(str(e))
        self._report = getattr(e, "summaryReport", str(e))

    def getSummaryReport(self) -> str:
        return self._report

    def getProfilePath(self) -> str:
        # There is no Poplar profile on the CPU.
        return ""
