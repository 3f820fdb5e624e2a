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


def autodiff(graph, grads_provided=None, grads_required=None, called_graphs_grad_info=None,
             return_all_grad_graphs: bool = False) -> GradGraphInfo:
    """Differentiates `graph`: a new graph computing the gradients of its float inputs `grads_required`
    (default: all, in input order; else in the order given) from the gradients of its outputs
    `grads_provided` (default: all; the others count as zero), which are the new graph's first inputs,
    and the forward activations it needs."""
    def ids(tensors, what):
        if tensors is None:
            return None
        out = []
        for t in tensors:
            if not hasattr(t, "_pb_tensor") or t.graph != graph:
                name = getattr(t, "id", repr(t))
                raise ValueError(f"autodiff of graph '{graph.name}': {what} '{name}' is not a tensor of that "
                                 "graph")
            out.append(t.id)
        return out
    pb_graph, ins, outs = _ir.autodiffGraph(graph._pb_graph, ids(grads_required, "grads_required"),
                                            ids(grads_provided, "grads_provided"))
    ir = graph.ir
    bwd = ir._graph(pb_graph)
    mk = lambda lst: tuple(ExpectedConnection(graph, ExpectedConnectionType(t), i) for t, i in lst)  # noqa: E731
    info = GradGraphInfo(ir, bwd, graph, mk(ins), mk(outs))
    return [info] if return_all_grad_graphs else info
