"""popxl.Ir: the IR a PopXL program builds (wraps popart._internal.ir.Ir as `_pb_ir`)."""
import inspect
import itertools

import popart_core
from popart._internal import ir as _ir
from popxl.graph import Graph


class Ir:
    """An IR: a main graph plus the sub-graphs created from Python functions."""

    def __init__(self, replication: int = 1):
        self._pb_ir = _ir.Ir()
        self._graphs = {}
        self._graph_ids = itertools.count()
        self.num_host_transfers = 1
        self.replication_factor = replication
        self._h2d = {}
        self._d2h = {}

    def _pb_ir_has_tensor(self, tid: str) -> bool:
        return any(g.hasTensor(tid) for g in self._pb_ir.getAllGraphs())

    def _graph(self, pb_graph) -> Graph:
        g = self._graphs.get(pb_graph.id)
        if g is None:
            g = self._graphs[pb_graph.id] = Graph(self, pb_graph)
        return g

    @property
    def main_graph(self) -> Graph:
        return self._graph(self._pb_ir.getMainGraph())

    def get_graph(self, graph_id: str) -> Graph:
        if not self._pb_ir.hasGraph(graph_id):
            raise ValueError(f"the Ir has no graph '{graph_id}'")
        return self._graph(self._pb_ir.getGraph(graph_id))

    def create_empty_graph(self, name: str = "graph") -> Graph:
        gid = name
        while self._pb_ir.hasGraph(gid):
            gid = f"{name}_{next(self._graph_ids)}"
        return self._graph(self._pb_ir.createGraph(gid))

    def create_graph(self, fn, *args, **kwargs) -> Graph:
        """A sub-graph made by calling `fn` (a function or a popxl.Module) with graph inputs in
        place of the Tensor arguments (and TensorSpecs); its return values become the outputs."""
        from popxl.module import Module
        from popxl.tensor import Tensor, graph_input, graph_output
        from popxl.tensor_spec import TensorSpec
        target = fn.build if isinstance(fn, Module) else fn
        name = getattr(target, "__qualname__", "graph").replace(".", "_").replace("<", "").replace(">", "")
        g = self.create_empty_graph(name)
        try:
            bound = inspect.signature(target).bind(*args, **kwargs)
        except (TypeError, ValueError) as e:
            raise TypeError(f"create_graph({name}): the arguments do not fit its signature: {e}") from None
        with g:
            for pname, value in list(bound.arguments.items()):
                bound.arguments[pname] = self._as_input(pname, value, graph_input, Tensor, TensorSpec)
            out = target(*bound.args, **bound.kwargs)
            outs = out if isinstance(out, (tuple, list)) else (() if out is None else (out,))
            for t in outs:
                graph_output(t)
        return g

    @staticmethod
    def _as_input(pname, value, graph_input, Tensor, TensorSpec):
        if isinstance(value, Tensor):
            return graph_input(value.shape, value.dtype, pname)
        if isinstance(value, TensorSpec):
            return graph_input(value.shape, value.dtype, pname)
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, (Tensor, TensorSpec)) for v in value):
            return type(value)(graph_input(v.shape, v.dtype, f"{pname}_{i}") for i, v in enumerate(value))
        return value

    # ---- for popxl.Session ----
    def _host_io_ops(self, op_type: str):
        for g in self._pb_ir.getAllGraphs():
            for op in g.getOps():
                if op.opType() == op_type:
                    yield op

    def _loaded_streams(self):
        """The host-to-device streams some host_load op reads, in creation order."""
        ids = {op.getAttribute("streamTensorId") for op in self._host_io_ops("HostLoad")}
        return [s for tid, s in self._h2d.items() if tid in ids]

    def _stored_streams(self):
        """The device-to-host streams some host_store op writes, in creation order."""
        ids = {op.getAttribute("streamTensorId") for op in self._host_io_ops("HostStore")}
        return [s for tid, s in self._d2h.items() if tid in ids]

    def _freeze(self):
        """Sets the data flow and options a session compiles the Ir with; it must not change afterwards."""
        if getattr(self, "_frozen", False):
            return
        if self.num_host_transfers < 1:
            raise ValueError(f"Ir.num_host_transfers is {self.num_host_transfers}, expected at least 1")
        anchors = {s.tensor_id: popart_core.AnchorReturnType("All") for s in self._stored_streams()}
        self._pb_ir.setDataFlow(popart_core.DataFlow(self.num_host_transfers, anchors))
        opts = self._pb_ir.getSessionOptions()
        opts.enableExplicitMainLoops = True
        if self.replication_factor > 1:
            opts.enableReplicatedGraphs = True
            opts.replicatedGraphCount = self.replication_factor
        self._frozen = True

    def dot_checkpoint(self, check: str, save_dir=None) -> None:
        """Writes a DOT file of the IR for check point `check` (when dot checks are enabled)."""
        self._pb_ir.dotCheckpoint(check)

    def __repr__(self):
        return f"Ir[{len(self._graphs)} graphs]"
