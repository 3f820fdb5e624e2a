"""popxl.fp8_utils: float8 conversions on the host (the device ops live in popxl.ops)."""
import numpy as np

from popxl import dtypes
from popxl.utils import host_cast_then_pow2scale, host_pow2scale_then_cast


def host_pow2scale_cast_to_fp8(src: np.ndarray, dtype=dtypes.float8_143, log2_scale: int = 0,
                               nan_on_overflow: bool = True) -> np.ndarray:
    """src * 2**log2_scale as float8 `dtype` bit patterns (uint8); see popxl.utils.host_pow2scale_then_cast."""
    return host_pow2scale_then_cast(src, dtype, log2_scale, nan_on_overflow)


def host_pow2scale_cast_from_fp8(src: np.ndarray, dtype=dtypes.float8_143, log2_scale: int = 0,
                                 to=np.float32) -> np.ndarray:
    """float8 bit patterns (uint8) of `dtype` as `to` values times 2**log2_scale."""
    return host_cast_then_pow2scale(src, dtype, log2_scale, to)


def __getattr__(name):
    # The device-side casts are ops: popxl.fp8_utils.pow2scale_cast_to_fp8 is popxl.ops.pow2scale_cast_to_fp8.
    if name in ("pow2scale_cast_to_fp8", "pow2scale_cast_from_fp8"):
        from popxl import ops
        return getattr(ops, name)
    raise AttributeError(f"module 'popxl.fp8_utils' has no attribute '{name}'")
