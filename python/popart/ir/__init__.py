"""popart.ir: PopXL under its earlier name. The objects are popxl's; the differences are popart.ir's call
forms: ``ir.main_graph()`` is called, a stream's ``tensor_id()`` is called, sub-graph inputs and outputs
are ``subgraph_input``/``subgraph_output``, and call sites are ``SubgraphOpInfo``. An IR built here runs
through ``popart.InferenceSession.fromIr(ir=ir._pb_ir, deviceInfo=...)`` (or a ``popxl.Session``)."""
import popxl as _popxl
from popxl import (  # noqa: F401
    Module, Tensor, TensorSpec, constant, gcg, get_current_graph, get_main_graph, gmg, in_sequence, name_scope,
    variable,
)
from popxl.dtypes import (  # noqa: F401
    bool, dtype, double, float, float16, float32, float64, half, int8, int16, int32, int64, uint8, uint16,
    uint32, uint64,
)
from popxl.tensor import graph_input as subgraph_input, graph_output as subgraph_output  # noqa: F401
from popxl.ops._call import CallSiteInfo as SubgraphOpInfo  # noqa: F401

from popart.ir import dtypes  # noqa: F401,E402


class _CallableId(str):
    """A tensor id that can also be called, as popart.ir's ``stream.tensor_id()``."""

    def __call__(self) -> str:
        return str(self)


class Graph(_popxl.Graph):
    """A graph of a popart.ir Ir; calling it returns itself, so ``ir.main_graph()`` works."""

    def __call__(self) -> "Graph":
        return self


class Ir(_popxl.Ir):
    """A popart.ir IR: popxl's Ir whose main_graph is also callable."""

    def _graph(self, pb_graph):
        g = self._graphs.get(pb_graph.id)
        if g is None:
            g = self._graphs[pb_graph.id] = Graph(self, pb_graph)
        return g


class HostToDeviceStream(_popxl.HostToDeviceStream):
    @property
    def tensor_id(self):
        return _CallableId(self._id)


class DeviceToHostStream(_popxl.DeviceToHostStream):
    @property
    def tensor_id(self):
        return _CallableId(self._id)


def _retype(stream, cls):
    stream.__class__ = cls
    return stream


def h2d_stream(shape, dtype, name=None) -> HostToDeviceStream:
    """A host-to-device stream (see popxl.h2d_stream)."""
    return _retype(_popxl.h2d_stream(shape, dtype, name), HostToDeviceStream)


def d2h_stream(shape, dtype, name=None) -> DeviceToHostStream:
    """A device-to-host stream (see popxl.d2h_stream)."""
    return _retype(_popxl.d2h_stream(shape, dtype, name), DeviceToHostStream)
