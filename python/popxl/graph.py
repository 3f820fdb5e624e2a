"""popxl.Graph: a graph of an Ir; `with graph:` makes it the current graph."""
import itertools

from popxl import context


class Graph:
    """A popxl graph (wraps a popart._internal.ir Graph as `_pb_graph`)."""

    def __init__(self, ir, pb_graph):
        self._ir = ir
        self._pb_graph = pb_graph
        self._in_sequence = False
        self._last_op = None
        self._by_ref_inputs = set()
        self._alias_roots = {}  # tensor id -> id of the tensor whose memory it shares (in-place outputs)
        self._last_modifier = {}  # root tensor id -> the last op created that modifies it
        self._ids = itertools.count()

    @property
    def ir(self):
        return self._ir

    @property
    def id(self) -> str:
        return self._pb_graph.id

    @property
    def name(self) -> str:
        return self._pb_graph.getGraphString()

    def _wrap(self, tid):
        from popxl.tensor import Constant, Tensor, Variable, _TT
        pb = self._pb_graph.getTensor(tid)
        cls = {_TT.Variable: Variable, _TT.Const: Constant}.get(pb.tensorType(), Tensor)
        return cls(pb, self)

    @property
    def inputs(self):
        return tuple(self._wrap(t) for t in self._pb_graph.getInputIds())

    @property
    def outputs(self):
        return tuple(self._wrap(t) for t in self._pb_graph.getOutputIds())

    @property
    def tensors(self):
        return tuple(self._wrap(t) for t in self._pb_graph.getTensorIds())

    def _of_type(self, tt):
        return tuple(self._wrap(t.id) for t in self._pb_graph.getTensorsOfType(tt))

    @property
    def variables(self):
        from popxl.tensor import _TT
        return self._of_type(_TT.Variable)

    @property
    def constants(self):
        from popxl.tensor import _TT
        return self._of_type(_TT.Const)

    def _new_id(self, name: str) -> str:
        base = context._scoped(name)
        if not self._pb_graph.isMainGraph():
            base = f"{self.id}/{base}"
        tid = base
        while self._ir._pb_ir_has_tensor(tid) or tid in self._ir._d2h or tid in self._ir._h2d:
            tid = f"{base}_{next(self._ids)}"
        return tid

    def _check_in_graph(self, t, what: str):
        from popxl.tensor import Tensor
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: expected a popxl.Tensor, got {type(t).__name__}")
        if t._graph._pb_graph.id != self._pb_graph.id or t._graph._ir is not self._ir:
            raise ValueError(f"{what}: tensor '{t.id}' belongs to graph '{t._graph.name}', not to the current "
                             f"graph '{self.name}' (pass it as a graph input)")

    def __enter__(self):
        context._push(self)
        return self

    def __exit__(self, *exc):
        context._pop(self)
        return False

    def __eq__(self, other):
        return isinstance(other, Graph) and other._pb_graph.id == self._pb_graph.id and other._ir is self._ir

    def __hash__(self):
        return hash((id(self._ir), self._pb_graph.id))

    def __repr__(self):
        return f"Graph[{self.name}]"
