"""The view ops transpose_, slice_ and concat_: results that alias parts of their inputs.

The IR aliases whole buffers only, so a view is computed as a copy and kept in step with what it views,
in creation order: an op that modifies a view (in place) is followed by writes of the new values back into
the viewed tensors, and an op that modifies a viewed tensor is followed by a refresh of its views. Reads
created after a modification therefore see it through every alias, as with PopXL's views."""
from typing import Callable, Iterable, List

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op, transpose
from popxl.tensor import Tensor


class _View:
    """View `view_id` of the tensors `source_ids`: refresh(sources) recomputes it; writeback[k](view, source)
    gives source k's value with the view's values written in."""

    def __init__(self, view_id: str, source_ids: List[str], refresh: Callable, writeback: List[Callable]):
        self.view_id = view_id
        self.source_ids = source_ids
        self.refresh = refresh
        self.writeback = writeback


def _register(t_view: Tensor, sources: List[Tensor], refresh, writeback) -> Tensor:
    g = t_view.graph
    if not hasattr(g, "_views"):
        g._views = []
        g._view_syncing = False
    g._views.append(_View(t_view.id, [s.id for s in sources], refresh, writeback))
    return t_view


def _copy_into(g, dst_id: str, value: Tensor) -> None:
    _op("CopyVarUpdate", [g._wrap(dst_id), value], domain=_GC, name=f"{dst_id}_view_sync")


def after_op(g, pb_op) -> None:
    """Keeps views and viewed tensors in step after `pb_op` (called for every op created)."""
    views = getattr(g, "_views", None)
    if not views or g._view_syncing:
        return
    roots = g._alias_roots
    root = lambda tid: roots.get(tid, tid)  # noqa: E731
    modified = {root(tid) for i, tid in pb_op.getInputIds().items() if pb_op.modifies(i)}
    if not modified:
        return
    g._view_syncing = True
    try:
        written = set()
        for v in views:  # a modified view writes back into its sources
            if root(v.view_id) in modified:
                for k, sid in enumerate(v.source_ids):
                    _copy_into(g, sid, v.writeback[k](g._wrap(v.view_id), g._wrap(sid)))
                    written.add(root(sid))
        changed = modified | written
        for v in views:  # views of modified tensors are refreshed
            if root(v.view_id) not in modified and any(root(s) in changed for s in v.source_ids):
                _copy_into(g, v.view_id, v.refresh([g._wrap(s) for s in v.source_ids]))
    finally:
        g._view_syncing = False


def transpose_(t: Tensor, permutation=None) -> Tensor:
    """transpose whose result is a view of t: in-place changes of either show in the other."""
    _checks.tensor("transpose_", t)
    perm = list(permutation) if permutation is not None else list(reversed(range(t.rank)))
    if sorted(_checks.axis("transpose_", t, p) for p in perm) != list(range(t.rank)):
        raise ValueError(f"transpose_: {perm} is not a permutation of the axes of tensor '{t.id}' (rank {t.rank})")
    inv = list(np.argsort([p % t.rank for p in perm]))
    y = transpose(t, perm)
    return _register(y, [t], lambda s: transpose(s[0], perm), [lambda v, s: transpose(v, inv)])


def slice_(t: Tensor, start=None, stop=None, step=None, axis=None) -> Tensor:
    """slice whose result is a view of t: in-place changes of either show in the other."""
    from popxl.ops._shape import _slice_write, slice
    y = slice(t, start, stop, step, axis)
    return _register(y, [t], lambda s: slice(s[0], start, stop, step, axis),
                     [lambda v, s: _slice_write(s, v, start, stop, step, axis)])


def concat_(ts: Iterable[Tensor], axis: int = 0) -> Tensor:
    """concat whose result is a view of the inputs: in-place changes of either show in the other."""
    from popxl.ops._shape import concat, slice
    ts = list(ts)
    y = concat(ts, axis)
    ax = _checks.axis("concat_", ts[0], axis)
    offs = np.cumsum([0] + [t.shape[ax] for t in ts])
    back = [(lambda b, e: lambda v, s: slice(v, int(b), int(e), 1, ax))(offs[k], offs[k + 1]) for k in range(len(ts))]
    return _register(y, ts, lambda s: concat(s, ax), back)
