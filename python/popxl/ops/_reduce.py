"""Reductions and order statistics of popxl.ops: argmax/argmin, cumsum, l1/l2/logsum/logsumexp/sumsquare,
median, topk, histogram (lamb_square: ops.var_updates)."""
from typing import Iterable, Optional, Tuple, Union

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor, constant

Axes = Optional[Union[int, Iterable[int]]]


def _argext(op_type, name):
    def f(t: Tensor, dim: int = 0, keepdim: bool = False) -> Tensor:
        from popxl.ops._math import cast
        from popxl.dtypes import int32
        _checks.tensor(name, t)
        ax = _checks.axis(name, t, dim)
        return cast(_op(op_type, [t], {"axis": ax, "keepdims": int(keepdim)}, version=13)[0], int32)
    f.__name__ = name
    f.__doc__ = (f"The int32 index of the {'largest' if 'Max' in op_type else 'smallest'} element along `dim` "
                 "(the first one on ties); keepdim keeps `dim` as size 1.")
    return f


argmax = _argext("ArgMax", "argmax")
argmin = _argext("ArgMin", "argmin")


def _reduce(op_type, name, doc):
    def f(t: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
        _checks.tensor(name, t)
        ax = _checks.axes(name, t, axis)
        return _op(op_type, [t], {"axes": ax, "keepdims": int(keepdims)}, version=11)[0]
    f.__name__ = name
    f.__doc__ = doc + " over `axis` (all axes when None); keepdims keeps them as size 1."
    return f


l1 = _reduce("ReduceL1", "l1", "Sum of |t|")
l2 = _reduce("ReduceL2", "l2", "sqrt of the sum of t**2")
logsum = _reduce("ReduceLogSum", "logsum", "log of the sum of t")
logsumexp = _reduce("ReduceLogSumExp", "logsumexp", "log of the sum of exp(t) (computed stably)")
sumsquare = _reduce("ReduceSumSquare", "sumsquare", "Sum of t**2")


def median(t: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    """The lower median of t over `axis` (all axes when None); keepdims keeps them as size 1."""
    _checks.tensor("median", t)
    ax = _checks.axes("median", t, axis)
    return _op("ReduceMedian", [t], {"axes": ax, "keepdims": int(keepdims)}, domain=_GC, n_out=2)[0]


def cumsum(t: Tensor, dim: int = 0) -> Tensor:
    """Cumulative sum of t along `dim`."""
    _checks.tensor("cumsum", t)
    ax = _checks.axis("cumsum", t, dim)
    return _op("CumSum", [t, constant(np.asarray(ax, np.int64), name="cumsum_axis")], version=14)[0]


def topk(t: Tensor, k: int, axis: int, largest: bool, sorted: bool) -> Tuple[Tensor, Tensor]:
    """The k largest (or smallest) values of t along `axis`, sorted, and their int32 indices."""
    from popxl.ops._math import cast
    from popxl.dtypes import int32
    _checks.tensor("topk", t)
    ax = _checks.axis("topk", t, axis)
    if not isinstance(k, (int, np.integer)) or not 0 < k <= t.shape[ax]:
        raise ValueError(f"topk: k={k!r} must be in [1, {t.shape[ax]}] for axis {ax} of tensor '{t.id}'")
    kk = constant(np.asarray([k], np.int64), name="topk_k")
    vals, idx = _op("TopK", [t, kk], {"axis": ax, "largest": int(largest), "sorted": 1}, n_out=2, version=11)
    return vals, cast(idx, int32)


def histogram(t: Tensor, levels: Iterable[float], absolute_of_input: bool) -> Tensor:
    """uint32 counts of t in the len(levels) + 1 bins the sorted `levels` delimit: x < levels[0],
    levels[i-1] <= x < levels[i], ..., x >= levels[-1] (of |t| when absolute_of_input)."""
    _checks.floating("histogram", t)
    lv = [float(x) for x in levels]
    if not lv or any(b < a for a, b in zip(lv, lv[1:])):
        raise ValueError(f"histogram: levels {lv} for tensor '{t.id}' must be a non-empty ascending list")
    return _op("Histogram", [t], {"levels": lv, "absoluteOfInput": int(absolute_of_input)}, domain=_GC)[0]
