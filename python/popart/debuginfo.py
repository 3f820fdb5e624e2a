"""Debug information (PopART's DebugInfo and the Poplar debug-info file).

Between ``initializePoplarDebugInfo(filename)`` and ``closePoplarDebugInfo()`` every
``DebugInfo`` created is recorded; closing writes them to the file as JSON:
``{"contexts": [{"id", "layer", "name", "values"}...]}``."""
import json
import threading

import popart_core

_lock = threading.Lock()
_state = {"filename": None, "contexts": [], "next_id": 1}


def initializePoplarDebugInfo(filename: str, format: str = "json") -> None:
    """Start recording debug information to ``filename`` (format "json")."""
    if format != "json":
        raise popart_core.popart_exception(
            f"initializePoplarDebugInfo: format '{format}' is not supported; use 'json'")
    with open(filename, "w", encoding="utf-8"):
        pass  # fail now, not at close, when the file cannot be written
    with _lock:
        _state.update(filename=filename, contexts=[])


def closePoplarDebugInfo() -> None:
    """Write the recorded debug information and stop recording."""
    with _lock:
        filename, contexts = _state["filename"], _state["contexts"]
        _state.update(filename=None, contexts=[])
    if filename is not None:
        with open(filename, "w", encoding="utf-8") as f:
            json.dump({"contexts": contexts}, f, indent=1)


class DebugInfo:
    """Debug information of one layer's object, named by a DebugContext.

    ``setValue(name, value)`` attaches a value (str, number, bool or a list/dict of them)."""

    def __init__(self, debugContext, layer: str):
        with _lock:
            self._id = _state["next_id"]
            _state["next_id"] += 1
            self._record = {"id": self._id, "layer": str(layer), "name": str(debugContext), "values": {}}
            if _state["filename"] is not None:
                _state["contexts"].append(self._record)

    def setValue(self, name: str, value) -> bool:
        """Attach ``value`` under ``name``; returns False when ``name`` was already set."""
        try:
            json.dumps(value)
        except TypeError as e:
            raise popart_core.popart_exception(f"DebugInfo.setValue('{name}'): value is not serialisable: {e}")
        with _lock:
            if name in self._record["values"]:
                return False
            self._record["values"][name] = value
        return True

    def getId(self) -> int:
        """A process-wide unique id."""
        return self._id

    def getPathName(self) -> str:
        """The debug context's path name."""
        return self._record["name"]
