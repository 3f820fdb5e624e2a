"""popxl.utils: host-side conversions of tensor data (to numpy, float8 with a power-of-two scale) and
table formatting.

float8_143 is 1 sign, 4 exponent and 3 mantissa bits with exponent bias 8 (largest 240, smallest 2**-10);
float8_152 is 1-5-2 with bias 16 (largest 57344, smallest 2**-17). Neither has infinities; the bit pattern
0x80 is NaN. On the host such data is held as uint8."""
from typing import Any, Iterable, Optional

import numpy as np

from popxl import dtypes

_LOG2_RANGE = (-32, 32)


def _fp8_numpy(dtype):
    import ml_dtypes
    if dtype == dtypes.float8_143:
        return np.dtype(ml_dtypes.float8_e4m3fnuz)
    if dtype == dtypes.float8_152:
        return np.dtype(ml_dtypes.float8_e5m2fnuz)
    raise TypeError(f"{dtype!r} is not a float8 dtype (float8_143 or float8_152)")


def _check_log2(log2_scale: int):
    if isinstance(log2_scale, bool) or not isinstance(log2_scale, (int, np.integer)):
        raise TypeError(f"log2_scale must be an int, got {type(log2_scale).__name__}")
    if not _LOG2_RANGE[0] <= log2_scale < _LOG2_RANGE[1]:
        raise ValueError(f"log2_scale {log2_scale} is outside [{_LOG2_RANGE[0]}, {_LOG2_RANGE[1]})")


def host_pow2scale_then_cast(src: np.ndarray, dtype=dtypes.float8_143, log2_scale: int = 0,
                             nan_on_overflow: bool = True) -> np.ndarray:
    """src * 2**log2_scale rounded to float8 `dtype` (nearest, ties to even), as uint8 bit patterns.
    Values beyond the format's range become NaN (nan_on_overflow) or saturate to the largest value."""
    _check_log2(log2_scale)
    target = _fp8_numpy(dtype)
    x = np.asarray(src)
    if x.dtype.kind != "f":
        raise TypeError(f"host_pow2scale_then_cast: source data must be floating point, got {x.dtype}")
    x = x.astype(np.float64) * (2.0 ** log2_scale)
    import ml_dtypes
    big = float(ml_dtypes.finfo(target).max)
    if not nan_on_overflow:
        x = np.clip(x, -big, big)  # NaN stays NaN
    out = x.astype(target)
    if nan_on_overflow:
        out[np.abs(x) > big] = np.nan
    return out.view(np.uint8)


def host_cast_then_pow2scale(src: np.ndarray, dtype=dtypes.float8_143, log2_scale: int = 0,
                             to=np.float32) -> np.ndarray:
    """float8 `dtype` data (uint8 bit patterns) as `to` values, times 2**log2_scale."""
    _check_log2(log2_scale)
    bits = np.asarray(src)
    if bits.dtype != np.uint8:
        raise TypeError(f"host_cast_then_pow2scale: float8 data is held as uint8, got {bits.dtype}")
    values = bits.view(_fp8_numpy(dtype)).astype(np.float64) * (2.0 ** log2_scale)
    return values.astype(to)


def to_numpy(x: Any, dtype=None, downcast: bool = True, copy: bool = True, log2_scale: Optional[int] = None,
             nan_on_overflow: Optional[bool] = None) -> np.ndarray:
    """`x` (numpy array, torch tensor, Python number or sequence) as a numpy array of popxl `dtype`.
    Without a dtype, float64 becomes float32 and int64 int32 when `downcast`. For a float8 dtype the
    data is scaled by 2**log2_scale (default 0) and cast on the host (NaN on overflow by default)."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a torch tensor
        x = x.detach().cpu().numpy()
    arr = np.array(x, copy=copy) if copy else np.asarray(x)
    if dtype is not None:
        dt = dtypes.dtype.as_dtype(dtype)
        if dt in (dtypes.float8_143, dtypes.float8_152):
            return host_pow2scale_then_cast(arr.astype(np.float32), dt, log2_scale or 0,
                                            True if nan_on_overflow is None else nan_on_overflow)
        return arr.astype(dt.as_numpy(), copy=False)
    if log2_scale is not None or nan_on_overflow is not None:
        raise ValueError("to_numpy: log2_scale and nan_on_overflow apply to float8 dtypes only")
    if downcast and arr.dtype == np.float64:
        return arr.astype(np.float32)
    if downcast and arr.dtype == np.int64:
        return arr.astype(np.int32)
    if downcast and arr.dtype == np.uint64:
        return arr.astype(np.uint32)
    return arr


def table_to_string(rows: Iterable[Iterable[Any]], delimiter: str = " | ", header: bool = True) -> str:
    """Rows of cells as an aligned text table; the first row is a header (underlined) when `header`."""
    rows = [[str(c) for c in r] for r in rows]
    if not rows:
        return ""
    n = max(len(r) for r in rows)
    rows = [r + [""] * (n - len(r)) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(n)]
    lines = [delimiter.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if header and len(lines) > 1:
        lines.insert(1, "-" * max(len(line) for line in lines))
    return "\n".join(lines)
