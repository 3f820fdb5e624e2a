"""popxl.transforms.autodiff: the backward graph of a graph and what it expects to be connected."""
from enum import Enum
from typing import Dict, Optional, Tuple

from popart._internal import ir as _ir


class ExpectedConnectionType(Enum):
    """Fwd: a tensor of the forward graph; FwdGrad: the gradient of one."""

    Fwd = "Fwd"
    FwdGrad = "FwdGrad"


class ExpectedConnection:
    """What an input or output of a backward graph corresponds to in the forward graph."""

    def __init__(self, fwd_graph, connection_type: ExpectedConnectionType, fwd_id: str):
        self._fwd_graph = fwd_graph
        self.connection_type = connection_type
        self._fwd_id = fwd_id

    @property
    def fwd_tensor(self):
        return self._fwd_graph._wrap(self._fwd_id)

    def __repr__(self):
        return f"({self.connection_type.name}, {self._fwd_id})"


class GradGraphInfo:
    """The result of autodiff: the backward graph, the forward graph and the connections they expect."""

    def __init__(self, ir, graph, forward_graph, expected_inputs, expected_outputs):
        self._ir = ir
        self.graph = graph
        self.forward_graph = forward_graph
        self.expected_inputs: Tuple[ExpectedConnection, ...] = expected_inputs
        self.expected_outputs: Tuple[ExpectedConnection, ...] = expected_outputs

    @property
    def inputs(self):
        return self.graph.inputs

    @property
    def outputs(self):
        return self.graph.outputs

    def inputs_dict(self, fwd_call_info) -> Dict:
        """Backward-graph inputs of type Fwd mapped to the tensors of the forward call `fwd_call_info`."""
        bwd_inputs = self.graph.inputs
        return {bwd_inputs[i]: fwd_call_info.graph_to_parent(c.fwd_tensor)
                for i, c in enumerate(self.expected_inputs) if c.connection_type is ExpectedConnectionType.Fwd}

    def fwd_graph_ins_to_grad_parent_outs(self, grad_call_info) -> Dict:
        """Forward-graph inputs mapped to the gradient tensors a call of the backward graph produced."""
        outs = grad_call_info.outputs
        return {c.fwd_tensor: outs[i] for i, c in enumerate(self.expected_outputs)}

    def fwd_parent_ins_to_grad_parent_outs(self, fwd_call_info, grad_call_info) -> Dict:
        """Parent tensors passed to the forward call mapped to their gradients from the backward call."""
        return {fwd_call_info.graph_to_parent(k): v
                for k, v in self.fwd_graph_ins_to_grad_parent_outs(grad_call_info).items()}


def _ids(tensors, pool, what, graph):
    ids = []
    for t in tensors:
        if t.id not in pool:
            raise ValueError(f"autodiff of graph '{graph.name}': {what} '{t.id}' is not one of its "
                             f"{'outputs' if what == 'grads_provided entry' else 'differentiable inputs'}")
        ids.append(t.id)
    return ids


def _restrict(info, provided, required):
    """A graph calling `info.graph` that takes only the provided output gradients (the others are zero)
    and gives only the required input gradients, in the order of `required`."""
    import numpy as np
    from popxl.ops._call import call
    from popxl.tensor import constant, graph_input, graph_output
    bwd, fwd = info.graph, info.forward_graph
    sel = info._ir.create_empty_graph(f"{bwd.name}_selected")
    kept_in = []
    with sel:
        args = []
        for i, (t, c) in enumerate(zip(bwd.inputs, info.expected_inputs)):
            if c.connection_type is ExpectedConnectionType.FwdGrad and c._fwd_id not in provided:
                args.append(constant(np.zeros(t.shape, t.dtype.as_numpy()), name=f"zero_grad{i}"))
            else:
                args.append(graph_input(t.shape, t.dtype, f"in{i}"))
                kept_in.append(c)
        outs = call(bwd, *args)
        by_fwd = {c._fwd_id: o for o, c in zip(outs, info.expected_outputs)}
        for fid in required:
            graph_output(by_fwd[fid])
    kept_out = tuple(ExpectedConnection(fwd, ExpectedConnectionType.FwdGrad, fid) for fid in required)
    return GradGraphInfo(info._ir, sel, fwd, tuple(kept_in), kept_out)


def autodiff(graph, grads_provided=None, grads_required=None, called_graphs_grad_info=None,
             return_all_grad_graphs: bool = False) -> GradGraphInfo:
    """Differentiates `graph`: a new graph computing the gradients of its float inputs from the
    gradients of its outputs (its first inputs) and the forward activations it needs.
    `grads_provided` (outputs of `graph`, default all) are the gradients the caller passes in, the
    others count as zero; `grads_required` (inputs of `graph`, default all float inputs) are the
    gradients the new graph gives, in that order."""
    pb_graph, ins, outs = _ir.autodiffGraph(graph._pb_graph)
    ir = graph.ir
    bwd = ir._graph(pb_graph)
    mk = lambda lst: tuple(ExpectedConnection(graph, ExpectedConnectionType(t), i) for t, i in lst)  # noqa: E731
    info = GradGraphInfo(ir, bwd, graph, mk(ins), mk(outs))
    out_ids = [t.id for t in graph.outputs]
    grad_ids = [c._fwd_id for c in info.expected_outputs]
    provided = set(out_ids if grads_provided is None else _ids(grads_provided, out_ids, "grads_provided entry", graph))
    required = grad_ids if grads_required is None else _ids(grads_required, grad_ids, "grads_required entry", graph)
    if provided != set(out_ids) or required != grad_ids:
        info = _restrict(info, provided, required)
    return [info] if return_all_grad_graphs else info
