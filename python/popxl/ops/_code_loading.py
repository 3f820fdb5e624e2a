"""popxl.ops.remote_code_load: code loading from streaming memory (guide 8.7)."""
from popxl import context
from popxl.ops._core import _GC, _sequence

_DESTINATIONS = ("executable",)


def remote_code_load(graph, destination: str) -> None:
    """Loads the code of `graph` from streaming memory into `destination` ("executable").

    On an IPU the load bounds the code's liveness: it is dead before the load and after the graph's last
    call. On the CPU code is always resident, so the op only takes its place in the schedule (use it inside
    ``popxl.in_sequence()`` before the calls, as on an IPU); `graph` and `destination` are checked all the
    same. Loading the same graph again reuses its implicit remote buffer."""
    from popxl.graph import Graph
    g = context.get_current_graph()
    g._check_mutable("remote_code_load")
    if not isinstance(graph, Graph):
        raise TypeError(f"remote_code_load: expected a popxl.Graph to load, got {type(graph).__name__}")
    if graph.ir is not g.ir:
        raise ValueError(f"remote_code_load: graph '{graph.name}' belongs to another Ir than the current graph "
                         f"'{g.name}'")
    if graph._pb_graph.isMainGraph():
        raise ValueError("remote_code_load: the main graph's code cannot be loaded (load a graph it calls)")
    if not isinstance(destination, str) or destination not in _DESTINATIONS:
        raise ValueError(f"remote_code_load: destination {destination!r} of graph '{graph.name}' is not one of "
                         f"{list(_DESTINATIONS)}")
    pb_op = g._pb_graph.createConnectedOp(_GC, "RemoteCodeLoad", 0, {}, {},
                                          {"graph_id": graph.id, "destination": destination}, "")
    _sequence(g, pb_op)
