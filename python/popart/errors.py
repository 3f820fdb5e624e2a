"""Python side of PopART's error classes."""
import popart_core


class OutOfMemoryException(popart_core.popart_exception):
    """Raised when the planned memory of a session does not fit.

    Wraps the popart_core memory allocation error and keeps its report."""

    def __init__(self, e):
        super().__init__(str(e))
        self._report = getattr(e, "summaryReport", str(e))

    def getSummaryReport(self) -> str:
        """The memory report of the session that did not fit, as text."""
        return self._report

    def getProfilePath(self) -> str:
        """The path of a Poplar profile: always "" here, as the CPU writes none."""
        return ""
