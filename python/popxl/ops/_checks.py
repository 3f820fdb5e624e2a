"""Argument checks shared by the popxl ops: errors name the op and the tensor."""
from popxl.tensor import Tensor


def tensor(op: str, t, what: str = "t") -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: argument '{what}' must be a popxl.Tensor, got {type(t).__name__}")
    return t


def floating(op: str, t: Tensor, what: str = "t") -> Tensor:
    tensor(op, t, what)
    if not t.dtype.is_floating_point:
        raise TypeError(f"{op}: tensor '{t.id}' ({what}) is {t.dtype.name}, expected a floating point type")
    return t


def integral(op: str, t: Tensor, what: str) -> Tensor:
    tensor(op, t, what)
    if not t.dtype.is_int:
        raise TypeError(f"{op}: tensor '{t.id}' ({what}) is {t.dtype.name}, expected an integer type")
    return t


def boolean(op: str, t: Tensor, what: str = "t") -> Tensor:
    from popxl.dtypes import bool as _bool
    tensor(op, t, what)
    if t.dtype != _bool:
        raise TypeError(f"{op}: tensor '{t.id}' ({what}) is {t.dtype.name}, expected bool")
    return t


def same_dtype(op: str, a: Tensor, b: Tensor) -> None:
    if a.dtype != b.dtype:
        raise TypeError(f"{op}: tensors '{a.id}' ({a.dtype.name}) and '{b.id}' ({b.dtype.name}) must have the "
                        "same dtype")


def axis(op: str, t: Tensor, ax: int, extra: int = 0) -> int:
    """`ax` normalised to [0, rank + extra) (negative counts from the end)."""
    r = t.rank + extra
    if not isinstance(ax, int) or not -r <= ax < r or (r == 0 and ax != 0):
        raise ValueError(f"{op}: axis {ax} is out of range for tensor '{t.id}' of rank {t.rank}")
    return ax + r if ax < 0 else ax


def axes(op: str, t: Tensor, ax) -> list:
    """`ax` (None: all axes, an int, or a sequence) as a list of normalised axes."""
    if ax is None:
        return list(range(t.rank))
    lst = [ax] if isinstance(ax, int) else list(ax)
    out = [axis(op, t, a) for a in lst]
    if len(set(out)) != len(out):
        raise ValueError(f"{op}: axes {lst} of tensor '{t.id}' repeat an axis")
    return out
