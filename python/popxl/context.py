"""Graph contexts: the graph ops go to, name scopes and in-sequence scheduling."""
from contextlib import contextmanager

_graph_stack = []
_name_scopes = []


def get_current_graph():
    """The graph of the innermost `with graph:` block (raises outside any)."""
    if not _graph_stack:
        raise RuntimeError("no current graph: use `with ir.main_graph:` (or another popxl.Graph) first")
    return _graph_stack[-1]


gcg = get_current_graph


def get_main_graph():
    """The main graph of the current graph's Ir."""
    return get_current_graph().ir.main_graph


gmg = get_main_graph


def _push(graph):
    _graph_stack.append(graph)


def _pop(graph):
    if not _graph_stack or _graph_stack[-1] is not graph:
        raise RuntimeError(f"graph contexts closed out of order (closing '{graph.name}')")
    _graph_stack.pop()


@contextmanager
def name_scope(name: str):
    """Prefixes the names of tensors created inside with `name/`."""
    _name_scopes.append(name)
    try:
        yield
    finally:
        _name_scopes.pop()


def _scoped(name: str) -> str:
    return "/".join(_name_scopes + [name]) if _name_scopes else name


@contextmanager
def in_sequence(enabled: bool = True):
    """Ops created inside run in creation order (topological constraints between them)."""
    g = get_current_graph()
    prev = g._in_sequence
    g._in_sequence = enabled
    g._last_op = None
    try:
        yield
    finally:
        g._in_sequence = prev
        g._last_op = None
