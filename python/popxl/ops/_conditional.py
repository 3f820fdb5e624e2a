"""conditional / conditional_with_info: an If op running one of two graphs, chosen at run time.

The If op's inputs are (cond, then-branch inputs..., else-branch inputs...). Each branch of the op is a
small wrapper graph taking all of those inputs and calling its popxl graph with its own share, so each
popxl graph keeps its own inputs. Inputs made with ``graph_input(..., by_ref=True)`` are passed by
reference, as with call: what the branch taken writes into them shows in the caller's tensor."""
from typing import Iterable, List, Mapping, Optional, Tuple

from popxl import context
from popxl.ops._call import _by_ref_indices, _connect, _mark_modified, call_with_info
from popxl.ops._core import _ONNX, _order_modifications, _sequence
from popxl.tensor import Tensor, graph_input, graph_output


class ConditionalSiteInfo:
    """One conditional: the If op, its two called graphs and how their inputs and outputs map to tensors
    of the calling (parent) graph. Op input 0 is the condition; the then-graph's inputs follow, then the
    else-graph's."""

    def __init__(self, pb_op, then_graph, else_graph, parent_graph, then_inputs: List[Tensor],
                 else_inputs: List[Tensor], outputs: List[Tensor], then_call, else_call):
        self._op = pb_op
        self.then_called_graph = then_graph
        self.else_called_graph = else_graph
        self.parent_graph = parent_graph
        self._then_inputs = then_inputs
        self._else_inputs = else_inputs
        self._outputs = outputs
        self._calls = {"then": then_call, "else": else_call}

    @property
    def conditional_op(self):
        """The IR If op (a popart._internal.ir Op)."""
        return self._op

    @property
    def inputs(self) -> Tuple[Tensor, ...]:
        """The parent tensors passed to the branches: then-graph inputs, then else-graph inputs."""
        return tuple(self._then_inputs + self._else_inputs)

    @property
    def outputs(self) -> Tuple[Tensor, ...]:
        """The parent tensors receiving the outputs of the branch taken."""
        return tuple(self._outputs)

    def _branch(self, which: str):
        if which == "then":
            return self.then_called_graph, self._then_inputs, 1
        return self.else_called_graph, self._else_inputs, 1 + len(self._then_inputs)

    @staticmethod
    def _check(idx: int, n: int, what: str, graph) -> None:
        if not 0 <= idx < n:
            raise IndexError(f"{what} index {idx} is out of range for the conditional's graph '{graph.name}' "
                             f"({n} {what}s)")

    def then_graph_to_parent_input_index(self, idx: int) -> int:
        """The If op input index of then-graph input `idx`."""
        self._check(idx, len(self._then_inputs), "input", self.then_called_graph)
        return 1 + idx

    def else_graph_to_parent_input_index(self, idx: int) -> int:
        """The If op input index of else-graph input `idx`."""
        self._check(idx, len(self._else_inputs), "input", self.else_called_graph)
        return 1 + len(self._then_inputs) + idx

    def parent_to_then_graph_input_index(self, idx: int) -> int:
        """The then-graph input index of If op input `idx`."""
        self._check(idx - 1, len(self._then_inputs), "op input", self.then_called_graph)
        return idx - 1

    def parent_to_else_graph_input_index(self, idx: int) -> int:
        """The else-graph input index of If op input `idx`."""
        first = 1 + len(self._then_inputs)
        self._check(idx - first, len(self._else_inputs), "op input", self.else_called_graph)
        return idx - first

    def is_parent_index_in_then(self, idx: int) -> bool:
        return 1 <= idx < 1 + len(self._then_inputs)

    def is_parent_index_in_else(self, idx: int) -> bool:
        return 1 + len(self._then_inputs) <= idx < 1 + len(self._then_inputs) + len(self._else_inputs)

    def _graph_to_parent(self, which: str, graph_tensor: Tensor) -> Tensor:
        graph, parents, _ = self._branch(which)
        ins = [t.id for t in graph.inputs]
        outs = [t.id for t in graph.outputs]
        if graph_tensor.id in ins:
            return parents[ins.index(graph_tensor.id)]
        if graph_tensor.id in outs:
            return self._outputs[outs.index(graph_tensor.id)]
        raise ValueError(f"tensor '{graph_tensor.id}' is neither an input nor an output of graph '{graph.name}'")

    def then_graph_to_parent(self, graph_tensor: Tensor) -> Tensor:
        """The parent tensor connected to an input or output of the then-graph."""
        return self._graph_to_parent("then", graph_tensor)

    def else_graph_to_parent(self, graph_tensor: Tensor) -> Tensor:
        """The parent tensor connected to an input or output of the else-graph."""
        return self._graph_to_parent("else", graph_tensor)

    def _parent_to_graph(self, which: str, parent_tensor: Tensor) -> Tensor:
        graph, parents, _ = self._branch(which)
        for i, t in enumerate(parents):
            if t == parent_tensor:
                return graph.inputs[i]
        for i, t in enumerate(self._outputs):
            if t == parent_tensor:
                return graph.outputs[i]
        raise ValueError(f"tensor '{parent_tensor.id}' is not connected to graph '{graph.name}' of the conditional")

    def parent_to_then_graph(self, parent_tensor: Tensor) -> Tensor:
        """The then-graph input or output connected to `parent_tensor`."""
        return self._parent_to_graph("then", parent_tensor)

    def parent_to_else_graph(self, parent_tensor: Tensor) -> Tensor:
        """The else-graph input or output connected to `parent_tensor`."""
        return self._parent_to_graph("else", parent_tensor)

    def parent_input(self, idx: int) -> Tensor:
        """The parent tensor at If op input `idx` (0 is the condition)."""
        if idx == 0:
            return self.parent_graph._wrap(self._op.getInputIds()[0])
        all_inputs = self._then_inputs + self._else_inputs
        self._check(idx - 1, len(all_inputs), "op input", self.then_called_graph)
        return all_inputs[idx - 1]

    def parent_output(self, idx: int) -> Tensor:
        """The parent tensor receiving output `idx` of the branch taken."""
        self._check(idx, len(self._outputs), "output", self.then_called_graph)
        return self._outputs[idx]

    def set_parent_input_modified(self, parent_tensor: Tensor, infer_modified_regions: bool = False) -> None:
        """Passes `parent_tensor` by reference to each branch it is an input of: the branch's changes to it
        show in the parent."""
        found = False
        for which in ("then", "else"):
            graph, parents, first = self._branch(which)
            for i, t in enumerate(parents):
                if t == parent_tensor:
                    found = True
                    _mark_modified(self._op, first + i)
                    _mark_modified(self._calls[which], i)
        if not found:
            raise ValueError(f"tensor '{parent_tensor.id}' is not an input of the conditional")
        _order_modifications(self.parent_graph, self._op)


def _branch_wrapper(graph, which: str, specs: List[Tensor], own: slice):
    """A graph taking tensors like `specs` as inputs and calling `graph` with its `own` share of them."""
    wrapper = graph.ir.create_empty_graph(f"{graph.name}_{which}")
    with wrapper:
        ins = [graph_input(t.shape, t.dtype, f"in{i}") for i, t in enumerate(specs)]
        info = call_with_info(graph, *ins[own])
        for o in info.outputs:
            graph_output(o)
    return wrapper, info.call_op


def _check_cond(g, cond) -> None:
    from popxl import dtypes
    g._check_in_graph(cond, "conditional: cond")
    if cond.dtype != dtypes.bool or cond.nelms != 1:
        raise ValueError(f"conditional: cond '{cond.id}' is {cond.dtype.name} {cond.shape}; expected one bool value")


def _check_outputs(then_branch, else_branch) -> None:
    t_outs, e_outs = then_branch.outputs, else_branch.outputs
    if len(t_outs) != len(e_outs):
        raise ValueError(f"conditional: then_branch '{then_branch.name}' has {len(t_outs)} outputs but else_branch "
                         f"'{else_branch.name}' has {len(e_outs)}")
    for i, (a, b) in enumerate(zip(t_outs, e_outs)):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise ValueError(f"conditional: output {i} is {a.dtype.name} {a.shape} in then_branch '{then_branch.name}' "
                             f"but {b.dtype.name} {b.shape} in else_branch '{else_branch.name}'")


def conditional_with_info(cond: Tensor, then_branch, else_branch, then_inputs: Optional[Iterable[Tensor]] = None,
                          else_inputs: Optional[Iterable[Tensor]] = None,
                          then_inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                          else_inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                          check_inputs: bool = True) -> ConditionalSiteInfo:
    """Runs `then_branch` when the bool scalar `cond` is true at run time, else `else_branch`; each is given
    its inputs (positional, then a dict keyed by the graph's input tensors, as for call). Both graphs must
    have outputs of the same number, shapes and dtypes. Returns the ConditionalSiteInfo of the op."""
    g = context.get_current_graph()
    _check_cond(g, cond)
    t_parents = _connect(then_branch, list(then_inputs or []), then_inputs_dict, check_inputs,
                         "conditional then_branch")
    e_parents = _connect(else_branch, list(else_inputs or []), else_inputs_dict, check_inputs,
                         "conditional else_branch")
    _check_outputs(then_branch, else_branch)
    n_then = len(t_parents)
    specs = t_parents + e_parents
    then_w, then_call = _branch_wrapper(then_branch, "then", specs, slice(0, n_then))
    else_w, else_call = _branch_wrapper(else_branch, "else", specs, slice(n_then, None))
    ins = {0: cond.id}
    ins.update({1 + i: t.id for i, t in enumerate(specs)})
    outs = {i: g._new_id(f"{then_branch.name}_cond_out{i}") for i in range(len(then_branch.outputs))}
    attrs = {"then_branch": then_w._pb_graph, "else_branch": else_w._pb_graph, "__implicit_inputs": len(specs)}
    by_ref = [1 + i for i in _by_ref_indices(then_branch)] + [1 + n_then + i for i in _by_ref_indices(else_branch)]
    if by_ref:
        attrs["modifiedInputs"] = sorted(set(by_ref))
    pb_op = g._pb_graph.createConnectedOp(_ONNX, "If", 0, ins, outs, attrs, "")
    _sequence(g, pb_op)
    return ConditionalSiteInfo(pb_op, then_branch, else_branch, g, t_parents, e_parents,
                               [g._wrap(outs[i]) for i in sorted(outs)], then_call, else_call)


def conditional(cond: Tensor, then_branch, else_branch, then_inputs: Optional[Iterable[Tensor]] = None,
                else_inputs: Optional[Iterable[Tensor]] = None,
                then_inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                else_inputs_dict: Optional[Mapping[Tensor, Tensor]] = None,
                check_inputs: bool = True) -> Tuple[Tensor, ...]:
    """Runs `then_branch` if `cond` else `else_branch` (see conditional_with_info); returns the outputs of the
    branch taken as a tuple of tensors of the current graph."""
    return conditional_with_info(cond, then_branch, else_branch, then_inputs, else_inputs, then_inputs_dict,
                                 else_inputs_dict, check_inputs).outputs
