"""The ops of popxl.ops, each lowered to one IR op of the registry (OperatorIdentifier + attributes)."""
from typing import Dict, Mapping, Optional

import numpy as np

from popxl import context
from popxl.tensor import Tensor, constant

_ONNX = "ai.onnx"
_GC = "ai.graphcore"


def _as_tensor(g, x, like: Optional[Tensor]):
    if isinstance(x, Tensor):
        g._check_in_graph(x, "op input")
        return x
    return constant(np.asarray(x, dtype=like.dtype.as_numpy()) if like is not None else x)


def _op(op_type, inputs, attrs=None, domain=_ONNX, n_out=1, name=None, version=0, out_ids=None):
    """Creates op `domain.op_type` connected to `inputs` in the current graph; returns its outputs."""
    g = context.get_current_graph()
    like = next((t for t in inputs if isinstance(t, Tensor)), None)
    ins = [_as_tensor(g, x, like) for x in inputs]
    outs = out_ids if out_ids is not None else [g._new_id(f"{name or op_type}_out{i}" if n_out > 1 else
                                                            (name or op_type)) for i in range(n_out)]
    pb_op = g._pb_graph.createConnectedOp(domain, op_type, version, {i: t.id for i, t in enumerate(ins)},
                                          {i: o for i, o in enumerate(outs)}, attrs or {}, name or "")
    _sequence(g, pb_op)
    return [g._wrap(o) for o in outs]


def _sequence(g, pb_op):
    """Inside in_sequence(): orders `pb_op` after the previous op created in the block."""
    if g._in_sequence:
        if g._last_op is not None:
            g._pb_graph.addTopoCon(g._last_op, pb_op)
        g._last_op = pb_op


def _binary(op_type):
    def f(lhs, rhs):
        return _op(op_type, [lhs, rhs])[0]
    f.__name__ = op_type.lower()
    f.__doc__ = f"Elementwise {op_type} with numpy broadcasting."
    return f


add = _binary("Add")
sub = _binary("Sub")
mul = _binary("Mul")
div = _binary("Div")
pow = _binary("Pow")
greater = _binary("Greater")
less = _binary("Less")


def matmul(lhs: Tensor, rhs: Tensor, available_memory_proportion=None, output_type=None, partials_type=None):
    """Matrix product with numpy's matmul broadcasting."""
    return _op("MatMul", [lhs, rhs])[0]


def negate(t: Tensor) -> Tensor:
    """-t elementwise."""
    return _op("Neg", [t])[0]


def relu(t: Tensor) -> Tensor:
    """max(t, 0) elementwise."""
    return _op("Relu", [t])[0]


def add_(lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs += rhs in place (lhs is modified; returns the updated lhs as a new tensor)."""
    return _op("AddLhsInplace", [lhs, rhs], domain=_GC)[0]


def detach(t: Tensor) -> Tensor:
    """t, with no gradient flowing back through it."""
    return _op("Detach", [t], domain=_GC)[0]


def reshape(t: Tensor, shape) -> Tensor:
    """t with a new shape (one -1 dimension is inferred)."""
    shape_t = constant(np.asarray(shape, dtype=np.int64), name="shape")
    return _op("Reshape", [t, shape_t])[0]


def transpose(t: Tensor, permutation=None) -> Tensor:
    """t with its axes permuted (reversed by default)."""
    perm = list(permutation) if permutation is not None else list(reversed(range(t.rank)))
    return _op("Transpose", [t], {"perm": perm})[0]


def host_load(h2d_stream, name: Optional[str] = None) -> Tensor:
    """The next value of host-to-device stream `h2d_stream` as a tensor of the main graph."""
    g = context.get_current_graph()
    if not g._pb_graph.isMainGraph():
        raise ValueError(f"host_load of stream '{h2d_stream.tensor_id}' in sub-graph '{g.name}': "
                         "host transfers happen in the main graph")
    src = g._wrap(h2d_stream.tensor_id)
    return _op("HostLoad", [src], {"streamTensorId": h2d_stream.tensor_id}, domain=_GC, name=name)[0]


def host_store(d2h_stream, t: Tensor) -> None:
    """Sends `t` to the host on device-to-host stream `d2h_stream`."""
    g = context.get_current_graph()
    g._check_in_graph(t, f"host_store to '{d2h_stream.tensor_id}'")
    if tuple(t.shape) != d2h_stream.shape or t.dtype != d2h_stream.dtype:
        raise ValueError(f"host_store: tensor '{t.id}' ({t.dtype.name} {t.shape}) does not match stream "
                         f"'{d2h_stream.tensor_id}' ({d2h_stream.dtype.name} {d2h_stream.shape})")
    pb_op = g._pb_graph.createConnectedOp(_GC, "HostStore", 0, {0: t.id}, {}, {"streamTensorId": d2h_stream.tensor_id},
                                          "")
    _sequence(g, pb_op)


class CallSiteInfo:
    """A call of a graph: the call op, the called graph and how tensors map between them."""

    def __init__(self, pb_op, called_graph, parent_graph):
        self._op = pb_op
        self.called_graph = called_graph
        self.parent_graph = parent_graph

    @property
    def inputs(self):
        ids = self._op.getInputIds()
        return tuple(self.parent_graph._wrap(ids[i]) for i in sorted(ids))

    @property
    def outputs(self):
        ids = self._op.getOutputIds()
        return tuple(self.parent_graph._wrap(ids[i]) for i in sorted(ids))

    def graph_to_parent_input_index(self, idx: int) -> int:
        return idx

    def parent_to_graph_input_index(self, idx: int) -> int:
        return idx

    def graph_to_parent(self, graph_tensor: Tensor) -> Tensor:
        """The tensor of the parent graph connected to `graph_tensor` (an input or output of the called graph)."""
        gins = [t.id for t in self.called_graph.inputs]
        gouts = [t.id for t in self.called_graph.outputs]
        if graph_tensor.id in gins:
            return self.inputs[gins.index(graph_tensor.id)]
        if graph_tensor.id in gouts:
            return self.outputs[gouts.index(graph_tensor.id)]
        raise ValueError(f"tensor '{graph_tensor.id}' is neither an input nor an output of graph "
                         f"'{self.called_graph.name}'")

    def parent_input(self, idx: int) -> Tensor:
        return self.inputs[idx]

    def parent_output(self, idx: int) -> Tensor:
        return self.outputs[idx]


def call_with_info(graph, *inputs, inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                   check_inputs: bool = True) -> CallSiteInfo:
    """Calls `graph` with `inputs` (positional, then `inputs_dict` keyed by the graph's input tensors)."""
    g = context.get_current_graph()
    g_inputs = graph.inputs
    conn: Dict[int, Tensor] = {i: t for i, t in enumerate(inputs)}
    pos = {t.id: i for i, t in enumerate(g_inputs)}
    for sub_t, parent_t in (inputs_dict or {}).items():
        if sub_t.id not in pos:
            raise ValueError(f"call of graph '{graph.name}': '{sub_t.id}' is not an input of that graph")
        conn[pos[sub_t.id]] = parent_t
    if check_inputs and sorted(conn) != list(range(len(g_inputs))):
        missing = [g_inputs[i].id for i in range(len(g_inputs)) if i not in conn]
        raise ValueError(f"call of graph '{graph.name}' with {len(conn)} inputs: it has {len(g_inputs)} inputs"
                         + (f"; missing {missing}" if missing else ""))
    ins = {}
    for i, t in sorted(conn.items()):
        t = _as_tensor(g, t, g_inputs[i] if i < len(g_inputs) else None)
        want = g_inputs[i]
        if check_inputs and (t.shape != want.shape or t.dtype != want.dtype):
            raise ValueError(f"call of graph '{graph.name}': input {i} '{t.id}' is {t.dtype.name} {t.shape}, "
                             f"graph input '{want.id}' is {want.dtype.name} {want.shape}")
        ins[i] = t.id
    outs = {i: g._new_id(f"{graph.name}_out{i}") for i in range(len(graph.outputs))}
    pb_op = g._pb_graph.createConnectedOp(_GC, "Call", 1, ins, outs, {"callee": graph._pb_graph}, "")
    _sequence(g, pb_op)
    return CallSiteInfo(pb_op, graph, g)


def call(graph, *inputs, inputs_dict=None, check_inputs: bool = True):
    """Calls `graph`; returns its outputs as a tuple of tensors of the current graph."""
    return call_with_info(graph, *inputs, inputs_dict=inputs_dict, check_inputs=check_inputs).outputs
