"""Calling graphs: call / call_with_info (a Call op) and repeat / repeat_with_info (a Loop whose body
calls the graph). Inputs made with ``graph_input(..., by_ref=True)`` are passed by reference: what the
called graph writes into them shows in the caller's tensor after the op."""
from typing import Dict, List, Mapping, Optional

import numpy as np

from popxl import context
from popxl.ops._core import _GC, _ONNX, _as_tensor, _order_modifications, _sequence
from popxl.tensor import Tensor, constant, graph_input, graph_output


class CallSiteInfo:
    """One call of a graph (by call or repeat): the op, the called graph and how the called graph's
    inputs and outputs map to tensors of the calling (parent) graph."""

    def __init__(self, pb_op, called_graph, parent_graph, parent_inputs: List[Tensor], input_offset: int = 0,
                 inner_call=None):
        self._op = pb_op
        self.called_graph = called_graph
        self.parent_graph = parent_graph
        self._inputs = parent_inputs
        self._input_offset = input_offset  # op input index of called-graph input 0
        self._inner_call = inner_call  # repeat: the Call op of the Loop body

    @property
    def call_op(self):
        """The IR op of the call (a popart._internal.ir Op)."""
        return self._op

    @property
    def inputs(self):
        """The parent-graph tensors passed to the called graph's inputs, in input order."""
        return tuple(self._inputs)

    @property
    def _outputs(self):
        # read from the op: autodiff may add outputs (activations) to existing call sites
        ids = self._op.getOutputIds()
        return [self.parent_graph._wrap(ids[i]) for i in sorted(ids)]

    @property
    def outputs(self):
        """The parent-graph tensors that receive the called graph's outputs, in output order."""
        return tuple(self._outputs)

    def graph_to_parent_input_index(self, idx: int) -> int:
        """The op input index of called-graph input `idx`."""
        self._check_index(idx, len(self._inputs), "input")
        return idx + self._input_offset

    def parent_to_graph_input_index(self, idx: int) -> int:
        """The called-graph input index of op input `idx`."""
        self._check_index(idx - self._input_offset, len(self._inputs), "op input")
        return idx - self._input_offset

    def graph_to_parent_output_index(self, idx: int) -> int:
        self._check_index(idx, len(self._outputs), "output")
        return idx

    def parent_to_graph_output_index(self, idx: int) -> int:
        self._check_index(idx, len(self._outputs), "output")
        return idx

    def _check_index(self, idx, n, what):
        if not 0 <= idx < n:
            raise IndexError(f"{what} index {idx} is out of range for the call of graph "
                             f"'{self.called_graph.name}' ({n} {what}s)")

    def graph_to_parent(self, graph_tensor: Tensor) -> Tensor:
        """The parent tensor connected to `graph_tensor` (an input or output of the called graph)."""
        gins = [t.id for t in self.called_graph.inputs]
        gouts = [t.id for t in self.called_graph.outputs]
        if graph_tensor.id in gins:
            return self._inputs[gins.index(graph_tensor.id)]
        if graph_tensor.id in gouts:
            return self._outputs[gouts.index(graph_tensor.id)]
        raise ValueError(f"tensor '{graph_tensor.id}' is neither an input nor an output of graph "
                         f"'{self.called_graph.name}'")

    def parent_to_graph(self, parent_tensor: Tensor) -> Tensor:
        """The called-graph input or output connected to `parent_tensor`."""
        for i, t in enumerate(self._inputs):
            if t == parent_tensor:
                return self.called_graph.inputs[i]
        for i, t in enumerate(self._outputs):
            if t == parent_tensor:
                return self.called_graph.outputs[i]
        raise ValueError(f"tensor '{parent_tensor.id}' is not connected to the call of graph "
                         f"'{self.called_graph.name}'")

    def parent_input(self, idx: int) -> Tensor:
        """The parent tensor passed to called-graph input `idx`."""
        self._check_index(idx, len(self._inputs), "input")
        return self._inputs[idx]

    def parent_output(self, idx: int) -> Tensor:
        """The parent tensor receiving called-graph output `idx`."""
        self._check_index(idx, len(self._outputs), "output")
        return self._outputs[idx]

    def set_parent_input_modified(self, parent_tensor: Tensor, infer_modified_regions: bool = False) -> None:
        """Passes `parent_tensor` by reference: the called graph's changes to it show in the parent."""
        graph_in = self.parent_to_graph(parent_tensor)
        idx = [t.id for t in self.called_graph.inputs].index(graph_in.id)
        _mark_modified(self._op, idx + self._input_offset)
        if self._inner_call is not None:
            _mark_modified(self._inner_call, idx)
        _order_modifications(self.parent_graph, self._op)


def _mark_modified(pb_op, op_index: int) -> None:
    mods = list(pb_op.getAttribute("modifiedInputs")) if pb_op.hasAttribute("modifiedInputs") else []
    if op_index not in mods:
        pb_op.setAttribute("modifiedInputs", sorted(mods + [op_index]))


def _connect(graph, inputs, inputs_dict, check_inputs: bool, what: str) -> List[Tensor]:
    """The parent tensors for each input of `graph`: positional `inputs`, then `inputs_dict` keyed by the
    graph's input tensors; checked for count, shape and dtype."""
    g = context.get_current_graph()
    g._check_mutable(what)
    if graph.ir is not g.ir:
        raise ValueError(f"{what} of graph '{graph.name}': it belongs to another Ir")
    if graph == g:
        raise ValueError(f"{what} of graph '{graph.name}' from inside itself: recursion is not supported")
    g_inputs = graph.inputs
    if len(inputs) > len(g_inputs):
        raise ValueError(f"{what} of graph '{graph.name}' with {len(inputs)} positional inputs: it has "
                         f"{len(g_inputs)} inputs")
    conn: Dict[int, object] = {i: t for i, t in enumerate(inputs)}
    pos = {t.id: i for i, t in enumerate(g_inputs)}
    for sub_t, parent_t in (inputs_dict or {}).items():
        if not isinstance(sub_t, Tensor) or sub_t.id not in pos:
            name = sub_t.id if isinstance(sub_t, Tensor) else repr(sub_t)
            raise ValueError(f"{what} of graph '{graph.name}': '{name}' is not an input of that graph")
        conn[pos[sub_t.id]] = parent_t
    missing = [g_inputs[i].id for i in range(len(g_inputs)) if i not in conn]
    if missing:
        raise ValueError(f"{what} of graph '{graph.name}' with {len(conn)} inputs: it has {len(g_inputs)} "
                         f"inputs; missing {missing}")
    out = []
    for i in range(len(g_inputs)):
        want = g_inputs[i]
        t = _as_tensor(g, conn[i], want)
        if check_inputs and (t.shape != want.shape or t.dtype != want.dtype):
            raise ValueError(f"{what} of graph '{graph.name}': input {i} '{t.id}' is {t.dtype.name} {t.shape}, "
                             f"graph input '{want.id}' is {want.dtype.name} {want.shape}")
        out.append(t)
    return out


def _by_ref_indices(graph) -> List[int]:
    return [i for i, t in enumerate(graph.inputs) if t.id in graph._by_ref_inputs]


def call_with_info(graph, *inputs, inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                   check_inputs: bool = True) -> CallSiteInfo:
    """Calls `graph` with `inputs` (positional, then `inputs_dict` keyed by the graph's input tensors);
    returns the CallSiteInfo of the call."""
    g = context.get_current_graph()
    parents = _connect(graph, inputs, inputs_dict, check_inputs, "call")
    ins = {i: t.id for i, t in enumerate(parents)}
    outs = {i: g._new_id(f"{graph.name}_out{i}") for i in range(len(graph.outputs))}
    attrs = {"callee": graph._pb_graph}
    by_ref = _by_ref_indices(graph)
    if by_ref:
        attrs["modifiedInputs"] = by_ref
    pb_op = g._pb_graph.createConnectedOp(_GC, "Call", 1, ins, outs, attrs, "")
    _sequence(g, pb_op)
    return CallSiteInfo(pb_op, graph, g, parents)


def call(graph, *inputs, inputs_dict=None, check_inputs: bool = True):
    """Calls `graph`; returns its outputs as a tuple of tensors of the current graph."""
    return call_with_info(graph, *inputs, inputs_dict=inputs_dict, check_inputs=check_inputs).outputs


def _repeat_body(graph, parents: List[Tensor]):
    """A Loop body (iteration, cond, graph inputs...) -> (cond, graph outputs...) calling `graph`."""
    from popxl import dtypes
    ir = graph.ir
    body = ir.create_empty_graph(f"{graph.name}_repeat")
    with body:
        graph_input((), dtypes.int64, "iteration")
        cond = graph_input((), dtypes.bool, "cond")
        ins = [graph_input(t.shape, t.dtype, f"in{i}") for i, t in enumerate(graph.inputs)]
        info = call_with_info(graph, *ins)
        graph_output(cond)
        for o in info.outputs:
            graph_output(o)
    return body, info.call_op


def repeat_with_info(graph, repeat_trip_count: int, *inputs, inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                     check_inputs: bool = True) -> CallSiteInfo:
    """Runs `graph` `repeat_trip_count` times. Its first N inputs (N = its number of outputs) are carried:
    iteration i+1 receives the outputs of iteration i; the other inputs are the same tensors every time.
    The op's outputs are those of the last iteration."""
    if isinstance(repeat_trip_count, bool) or not isinstance(repeat_trip_count, (int, np.integer)):
        raise TypeError(f"repeat of graph '{graph.name}': repeat_trip_count must be an int, got "
                        f"{type(repeat_trip_count).__name__}")
    if repeat_trip_count < 0:
        raise ValueError(f"repeat of graph '{graph.name}': repeat_trip_count is {repeat_trip_count}, expected >= 0")
    g = context.get_current_graph()
    parents = _connect(graph, inputs, inputs_dict, check_inputs, "repeat")
    n_out, n_in = len(graph.outputs), len(graph.inputs)
    if n_out > n_in:
        raise ValueError(f"repeat of graph '{graph.name}': it has {n_out} outputs but only {n_in} inputs; each "
                         "output is carried into the input of the same position")
    for i in range(n_out):
        gi, go = graph.inputs[i], graph.outputs[i]
        if gi.shape != go.shape or gi.dtype != go.dtype:
            raise ValueError(f"repeat of graph '{graph.name}': output {i} '{go.id}' ({go.dtype.name} {go.shape}) "
                             f"is carried into input {i} '{gi.id}' ({gi.dtype.name} {gi.shape}): they must match")
    body, inner_call = _repeat_body(graph, parents)
    trips = constant(np.asarray(repeat_trip_count, dtype=np.int64), name="trip_count")
    ins = {0: trips.id}
    ins.update({2 + i: t.id for i, t in enumerate(parents)})
    outs = {i: g._new_id(f"{graph.name}_repeat_out{i}") for i in range(n_out)}
    attrs = {"body": body._pb_graph, "__implicit_inputs": n_in - n_out}
    by_ref = [2 + i for i in _by_ref_indices(graph)]
    if by_ref:
        attrs["modifiedInputs"] = by_ref
    pb_op = g._pb_graph.createConnectedOp(_ONNX, "Loop", 0, ins, outs, attrs, "")
    _sequence(g, pb_op)
    return CallSiteInfo(pb_op, graph, g, parents, input_offset=2, inner_call=inner_call)


def repeat(graph, repeat_trip_count: int, *inputs, inputs_dict=None, check_inputs: bool = True):
    """Runs `graph` `repeat_trip_count` times (see repeat_with_info); returns the last iteration's outputs."""
    return repeat_with_info(graph, repeat_trip_count, *inputs, inputs_dict=inputs_dict,
                            check_inputs=check_inputs).outputs
