"""Shape, indexing and data-movement ops of popxl.ops: concat, flatten, reshape_, squeeze, slice, split,
subsample, detach_, dynamic slices and updates, gather/scatter, onehot and the identity copies
io_tile_copy / ipu_copy."""
from typing import Iterable, List, Optional, Union

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op, reshape
from popxl.tensor import Tensor, constant


def _ints(name, v, what):
    lst = [v] if isinstance(v, (int, np.integer)) else list(v)
    for x in lst:
        if not isinstance(x, (int, np.integer)):
            raise TypeError(f"{name}: '{what}' must hold ints, got {x!r}")
    return [int(x) for x in lst]


def concat(ts: Iterable[Tensor], axis: int = 0) -> Tensor:
    """The tensors `ts` joined along `axis` (their other dimensions must match)."""
    ts = list(ts)
    if not ts:
        raise ValueError("concat: no tensors given")
    for t in ts:
        _checks.tensor("concat", t, "ts")
        _checks.same_dtype("concat", ts[0], t)
        if t.rank != ts[0].rank:
            raise ValueError(f"concat: tensor '{t.id}' has rank {t.rank}, '{ts[0].id}' has rank {ts[0].rank}")
    ax = _checks.axis("concat", ts[0], axis)
    return _op("Concat", ts, {"axis": ax}, version=13)[0]


def flatten(t: Tensor) -> Tensor:
    """t as a 1-D tensor (a reshape)."""
    return reshape(_checks.tensor("flatten", t), (t.nelms,))


def reshape_(t: Tensor, shape) -> Tensor:
    """reshape whose result is a view of t: it shares t's memory, so in-place changes of either show in the
    other (reshape's result has its own values)."""
    _checks.tensor("reshape_", t)
    shape_t = constant(np.asarray(shape, dtype=np.int64), name="shape")
    return _op("Reshape", [t, shape_t], {"view": 1}, name="reshape_")[0]


def flatten_(t: Tensor) -> Tensor:
    """flatten whose result is a view of t: it aliases t's memory."""
    return reshape_(t, (t.nelms,))


def detach_(t: Tensor) -> Tensor:
    """detach whose result is a view of t (shares its memory)."""
    _checks.tensor("detach_", t)
    return _op("Detach", [t], {"view": 1}, domain=_GC, name="detach_")[0]


def squeeze(t: Tensor, axes: Optional[Union[int, Iterable[int]]] = None) -> Tensor:
    """t without the size-1 dimensions `axes` (all of them when None)."""
    _checks.tensor("squeeze", t)
    if axes is None:
        ax = [i for i, d in enumerate(t.shape) if d == 1]
    else:
        ax = _checks.axes("squeeze", t, axes)
        for a in ax:
            if t.shape[a] != 1:
                raise ValueError(f"squeeze: axis {a} of tensor '{t.id}' {t.shape} has size {t.shape[a]}, not 1")
    return reshape(t, tuple(d for i, d in enumerate(t.shape) if i not in ax))


def _slice_args(t, start, stop, step, axis):
    n = next((len(v) for v in (start, stop, step, axis) if isinstance(v, (list, tuple))), None)

    def lst(v, default):
        if v is None:
            return [default] * (n or 1) if default is not None else None
        return _ints("slice", v, "start/stop/step/axis")

    axes = lst(axis, None)
    if axes is None:
        axes = list(range(n or 1))
    k = len(axes)
    starts = lst(start, None) or [None] * k
    stops = lst(stop, None) or [None] * k
    steps = lst(step, 1) if step is not None else [1] * k
    if not len(starts) == len(stops) == len(steps) == k:
        raise ValueError(f"slice: start/stop/step/axis of tensor '{t.id}' have different lengths")
    axes = [_checks.axis("slice", t, a) for a in axes]
    big = np.iinfo(np.int64).max
    out_s, out_e = [], []
    for s, e, st in zip(starts, stops, steps):
        if st == 0:
            raise ValueError(f"slice: step of tensor '{t.id}' must not be 0")
        out_s.append(s if s is not None else (0 if st > 0 else big))
        out_e.append(e if e is not None else (big if st > 0 else -big))
    return out_s, out_e, axes, steps


def slice(t: Tensor, start=None, stop=None, step=None, axis=None) -> Tensor:
    """t[start:stop:step] along `axis` (each an int or a list, one entry per axis; axis defaults to
    the first axes)."""
    _checks.tensor("slice", t)
    s, e, ax, st = _slice_args(t, start, stop, step, axis)
    c = lambda v, n: constant(np.asarray(v, np.int64), name=n)  # noqa: E731
    return _op("Slice", [t, c(s, "starts"), c(e, "ends"), c(ax, "axes"), c(st, "steps")], version=13)[0]


def split(t: Tensor, splits: Union[int, List[int]], axis: int = 0) -> List[Tensor]:
    """t cut along `axis` into `splits` equal parts (int) or parts of the given sizes (list)."""
    _checks.tensor("split", t)
    ax = _checks.axis("split", t, axis)
    d = t.shape[ax]
    if isinstance(splits, (int, np.integer)):
        if splits <= 0 or d % splits:
            raise ValueError(f"split: dimension {ax} of tensor '{t.id}' (size {d}) does not split into {splits} "
                             "equal parts")
        sizes = [d // int(splits)] * int(splits)
    else:
        sizes = _ints("split", splits, "splits")
        if sum(sizes) != d or any(x < 0 for x in sizes):
            raise ValueError(f"split: sizes {sizes} do not add up to dimension {ax} of tensor '{t.id}' (size {d})")
    sz = constant(np.asarray(sizes, np.int64), name="split")
    return _op("Split", [t, sz], {"axis": ax}, n_out=len(sizes), version=13)


def subsample(t: Tensor, strides: Iterable[int]) -> Tensor:
    """Every strides[k]-th element along each axis k (starting at 0)."""
    _checks.tensor("subsample", t)
    st = _ints("subsample", strides, "strides")
    if len(st) != t.rank or any(s <= 0 for s in st):
        raise ValueError(f"subsample: strides {st} must be {t.rank} positive ints for tensor '{t.id}'")
    return _op("Subsample", [t], {"strides": st}, domain=_GC)[0]


def _dynamic_args(name, t, index, axes, sizes):
    _checks.tensor(name, t)
    _checks.integral(name, index, "index")
    axes = [_checks.axis(name, t, a) for a in _ints(name, axes, "axes")]
    sizes = _ints(name, sizes, "sizes")
    if len(axes) != len(sizes) or index.nelms != len(axes):
        raise ValueError(f"{name}: tensor '{t.id}': axes {axes}, sizes {sizes} and index '{index.id}' "
                         f"{index.shape} must have one entry per axis")
    return {"axes": axes, "sizes": sizes}


def dynamic_slice(t: Tensor, index: Tensor, axes: List[int], sizes: List[int], no_overlap: bool) -> Tensor:
    """The region of t starting at the run-time offsets `index` (one per axis of `axes`), `sizes` long;
    offsets are clamped so the region stays inside t."""
    attrs = _dynamic_args("dynamic_slice", t, index, axes, sizes)
    attrs["noOverlap"] = int(no_overlap)
    return _op("DynamicSlice", [t, index], attrs, domain=_GC)[0]


def dynamic_update(t: Tensor, index: Tensor, t_update: Tensor, axes: List[int], sizes: List[int],
                   no_overlap: bool) -> Tensor:
    """A copy of t whose region at the run-time offsets `index` (see dynamic_slice) is `t_update`."""
    attrs = _dynamic_args("dynamic_update", t, index, axes, sizes)
    _checks.tensor("dynamic_update", t_update, "t_update")
    _checks.same_dtype("dynamic_update", t, t_update)
    attrs["noOverlap"] = int(no_overlap)
    return _op("DynamicUpdate", [t, index, t_update], attrs, domain=_GC)[0]


def dynamic_update_(t: Tensor, index: Tensor, t_update: Tensor, axes: List[int], sizes: List[int],
                    no_overlap: bool) -> Tensor:
    """dynamic_update in place: t is modified and the result aliases t."""
    from popxl.ops._math import _copy_into
    return _copy_into(t, dynamic_update(t, index, t_update, axes, sizes, no_overlap))


def gather(t: Tensor, indices: Tensor, axis: int = 0, available_memory_proportion: Optional[float] = None,
           zero_OOR: bool = False) -> Tensor:
    """t's slices at `indices` along `axis` (shape t.shape[:axis] + indices.shape + t.shape[axis+1:]).
    With zero_OOR, indices outside [0, t.shape[axis]) give zeros; otherwise they are an error."""
    _checks.tensor("gather", t)
    _checks.integral("gather", indices, "indices")
    ax = _checks.axis("gather", t, axis)
    if not zero_OOR:
        return _op("Gather", [t, indices], {"axis": ax}, version=13)[0]
    from popxl.ops._math import logical_and, where
    from popxl.ops._core import greater, less
    n = t.shape[ax]
    valid = logical_and(greater(indices, constant(np.asarray(-1, indices.dtype.as_numpy()))),
                        less(indices, constant(np.asarray(n, indices.dtype.as_numpy()))))
    safe = where(valid, indices, constant(np.asarray(0, indices.dtype.as_numpy())))
    g = _op("Gather", [t, safe], {"axis": ax}, version=13)[0]
    mask = reshape(valid, (1,) * ax + indices.shape + (1,) * (t.rank - ax - 1))
    return where(mask, g, constant(np.zeros((), t.dtype.as_numpy())))


def tied_gather(t: Tensor, indices: Tensor, axis: int = 0, available_memory_proportion: Optional[float] = None,
                zero_OOR: bool = False) -> Tensor:
    """gather whose weight `t` is shared with a matmul (a tile-layout hint on the IPU; the same
    values here)."""
    return gather(t, indices, axis, available_memory_proportion, zero_OOR)


def scatter(t: Tensor, indices: Tensor, values: Tensor, axis: int = 0,
            available_memory_proportion: Optional[float] = None) -> Tensor:
    """A copy of t with t[.., indices[i], ..] = values[i] along `axis` (indices and values have the same
    shape, as ONNX ScatterElements)."""
    _checks.tensor("scatter", t)
    _checks.integral("scatter", indices, "indices")
    _checks.tensor("scatter", values, "values")
    _checks.same_dtype("scatter", t, values)
    ax = _checks.axis("scatter", t, axis)
    return _op("ScatterElements", [t, indices, values], {"axis": ax}, version=13)[0]


_REDUCTIONS = {"sum": 0, "max": 1, "min": 2, "mul": 3, "none": 4}


def scatter_reduce(data: Tensor, index: Tensor, axis: int = 0, axis_size: Optional[int] = None,
                   reduction: str = "sum", initial_values: Optional[Tensor] = None,
                   available_memory_proportion: Optional[float] = None, enable_index_broadcast: bool = True) -> Tensor:
    """data's entries reduced (sum, max, min, mul, or none: the last write) into position index[..] along
    `axis` of an output with axis_size entries there (default: index's largest value is not known at build
    time, so axis_size is required); initial_values give the starting values (zeros otherwise)."""
    _checks.tensor("scatter_reduce", data, "data")
    _checks.integral("scatter_reduce", index, "index")
    ax = _checks.axis("scatter_reduce", data, axis)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"scatter_reduce: reduction '{reduction}' is not one of {sorted(_REDUCTIONS)}")
    if axis_size is None:
        if initial_values is None:
            raise ValueError(f"scatter_reduce: give axis_size (or initial_values) for tensor '{data.id}'")
        axis_size = initial_values.shape[ax]
    ins = [data, index] + ([initial_values] if initial_values is not None else [])
    attrs = {"axis": ax, "axis_size": int(axis_size), "reduction": _REDUCTIONS[reduction],
             "enable_index_broadcast": int(enable_index_broadcast)}
    return _op("ScatterReduce", ins, attrs, domain=_GC)[0]


def onehot(t: Tensor, num_classes: Tensor, values: Tensor, axis: int) -> Tensor:
    """One-hot encoding of the indices t: a new axis `axis` of size num_classes (a scalar constant) holding
    values[1] at the index and values[0] elsewhere."""
    _checks.integral("onehot", t, "t")
    _checks.tensor("onehot", num_classes, "num_classes")
    _checks.tensor("onehot", values, "values")
    if values.shape != (2,):
        raise ValueError(f"onehot: values '{values.id}' must have shape (2,) (off, on), got {values.shape}")
    _checks.axis("onehot", t, axis, extra=1)
    return _op("OneHot", [t, num_classes, values], {"axis": axis}, version=11)[0]


def io_tile_copy(t: Tensor) -> Tensor:
    """A copy of t moved between the compute and IO tiles: the copy is on the IO tiles when t is on the
    compute tiles and the other way round (one memory on the CPU: the values are copied)."""
    from popxl import context
    _checks.tensor("io_tile_copy", t)
    target = "compute" if t.tile_set == "io" else "io"
    context._tile_sets.append(target)
    try:
        return _op("Nop", [t], domain=_GC, name=f"{t.id}_{target}_copy")[0]
    finally:
        context._tile_sets.pop()


def ipu_copy(t: Tensor, destination: int, source: Optional[int] = None) -> Tensor:
    """A copy of t on IPU `destination`, from IPU `source` (default: the IPU of the op that produced t)."""
    from popxl import context
    _checks.tensor("ipu_copy", t)
    for what, v in (("destination", destination), ("source", source)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0):
            raise ValueError(f"ipu_copy: {what} of tensor '{t.id}' must be an IPU number >= 0, got {v!r}")
    placed = t._pb_tensor.hasProducer() and t._pb_tensor.getProducer().hasVirtualGraphId()
    if source is not None and placed and source != t.ipu:
        raise ValueError(f"ipu_copy: tensor '{t.id}' is on IPU {t.ipu}, not on source IPU {source}")
    src = source if source is not None else t.ipu
    if src == destination:
        raise ValueError(f"ipu_copy: tensor '{t.id}' is copied from IPU {src} to itself")
    with context.ipu(int(destination)):
        return _op("Nop", [t], domain=_GC, name=f"{t.id}_ipu{destination}")[0]


def _slice_write(t: Tensor, value: Tensor, start=None, stop=None, step=None, axis=None) -> Tensor:
    """A copy of t with the region slice(t, start, stop, step, axis) set to `value` (of that region's shape)."""
    s, e, ax, st = _slice_args(t, start, stop, step, axis)
    key = [np.s_[:]] * t.rank
    for a, b, c, d in zip(ax, s, e, st):
        key[a] = np.s_[b:c:d]
    flat_idx = np.arange(t.nelms, dtype=np.int64).reshape(t.shape)[tuple(key)]
    if flat_idx.shape != value.shape:
        raise ValueError(f"slice write: value '{value.id}' {value.shape} does not match the region {flat_idx.shape} "
                         f"of tensor '{t.id}'")
    if flat_idx.size == 0:
        return t
    out = _op("ScatterElements", [reshape(t, (t.nelms,)), constant(flat_idx.reshape(-1), name="region"),
                                  reshape(value, (value.nelms,))], {"axis": 0}, version=13)[0]
    return reshape(out, t.shape)
