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
        self._tile_sets = {}  # op id -> "io" for ops created under io_tiles()
        self._op_created_hooks = {}
        self._variable_settings = {}  # variable id -> replica_grouping / retrieval_mode
        self._locations = {}  # tensor id -> TensorLocation
        self._meta_shapes = {}  # tensor id -> full shape of a replica shard (popxl.remote)
        self._hook_ids = itertools.count()
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
    def inputs_by_name(self):
        """The graph's inputs keyed by name."""
        return {t.name: t for t in self.inputs}

    def get_tensor(self, tensor_id: str):
        """The tensor `tensor_id` of this graph."""
        if not self._pb_graph.hasTensor(tensor_id):
            raise ValueError(f"graph '{self.name}' has no tensor '{tensor_id}'")
        return self._wrap(tensor_id)

    @property
    def called_graphs(self):
        """The graphs this graph's ops call (Call, repeat bodies, branches), each once."""
        seen = []
        for op in self._pb_graph.getOps():
            for attr in ("callee", "body", "then_branch", "else_branch"):
                if op.hasAttribute(attr):
                    gid = op.getAttribute(attr)
                    if gid not in seen:
                        seen.append(gid)
        return tuple(self._ir.get_graph(gid) for gid in seen)

    @property
    def main_graph(self):
        """The main graph of this graph's Ir."""
        return self._ir.main_graph

    def register_op_created_hook(self, fn) -> int:
        """Calls `fn(op)` for every op created in this graph from now on; returns a handle for
        remove_op_created_hook."""
        if not callable(fn):
            raise TypeError(f"register_op_created_hook: {fn!r} is not callable")
        handle = next(self._hook_ids)
        self._op_created_hooks[handle] = fn
        return handle

    def remove_op_created_hook(self, handle: int) -> None:
        """Stops the hook registered under `handle`."""
        if handle not in self._op_created_hooks:
            raise ValueError(f"graph '{self.name}' has no op-created hook {handle}")
        del self._op_created_hooks[handle]

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

    def _create_tensor_id(self, name: str) -> str:
        """A tensor id unused in the Ir, from `name` under the current name scopes."""
        return self._new_id(name)

    def _check_mutable(self, what: str):
        if getattr(self._ir, "_frozen", False):
            import popart_core
            raise popart_core.popart_exception(f"{what} in graph '{self.name}': the Ir belongs to a Session now "
                                               "and cannot change")

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
