"""popxl.Ir: the IR a PopXL program builds (wraps popart._internal.ir.Ir as `_pb_ir`)."""
import inspect
import itertools

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

    def dot_checkpoint(self, check: str, save_dir=None) -> None:
        """Writes a DOT file of the IR for check point `check` (when dot checks are enabled)."""
        self._pb_ir.dotCheckpoint(check)

    def __repr__(self):
        return f"Ir[{len(self._graphs)} graphs]"
