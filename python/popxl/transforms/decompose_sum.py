"""popxl.transforms.decompose_sum: Sums of many tensors (autodiff's gradient sums) as chains of additions."""
from popart._internal import ir as _ir


def decompose_sum(graph):
    """Rewrites every Sum of more than two inputs in `graph` as a chain of Adds, so each partial sum is
    formed as soon as its operands exist and the operands need not all stay alive until one Sum runs.
    Returns `graph`."""
    from popxl.graph import Graph
    if not isinstance(graph, Graph):
        raise TypeError(f"decompose_sum: expected a popxl.Graph, got {type(graph).__name__}")
    graph._check_mutable("decompose_sum")
    _ir.decomposeSum(graph._pb_graph)
    return graph
