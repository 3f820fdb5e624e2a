"""Graph contexts: the graph ops go to, name scopes and in-sequence scheduling."""
import functools
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


_ipus = []
_tile_sets = []
_debug_contexts = []


@contextmanager
def ipu(ipu: int):
    """Ops created inside are placed on IPU `ipu` (their virtual graph; on the CPU, a core group)."""
    if isinstance(ipu, bool) or not isinstance(ipu, int) or ipu < 0:
        raise ValueError(f"ipu({ipu!r}): expected a non-negative int")
    _ipus.append(ipu)
    try:
        yield
    finally:
        _ipus.pop()


@contextmanager
def io_tiles():
    """Ops created inside run on the IO tiles (PopXL's overlapped IO; a label on the CPU)."""
    _tile_sets.append("io")
    try:
        yield
    finally:
        _tile_sets.pop()


def op_debug_context(name=None):
    """Decorator: the ops a function creates are named under the function's name (or `name`) for logs and
    DOT files. Use as ``@op_debug_context`` or ``@op_debug_context("name")``."""
    def wrap(fn, label):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            _debug_contexts.append(label)
            try:
                return fn(*args, **kwargs)
            finally:
                _debug_contexts.pop()
        return inner
    if callable(name):
        return wrap(name, name.__name__)
    return lambda fn: wrap(fn, name or fn.__name__)


def _current_ipu():
    return _ipus[-1] if _ipus else None


def _current_tile_set() -> str:
    return _tile_sets[-1] if _tile_sets else "compute"


def _debug_prefix() -> str:
    return "/".join(_debug_contexts)
