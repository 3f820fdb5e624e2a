"""Random ops of popxl.ops. Each takes a seed tensor (uint32 [2], see popxl.random_seed.create_seeds and
split_random_seed): the values drawn are a function of the seed's value, so a seed gives the same values
every time; split a seed to draw independent values."""
from typing import Tuple

import numpy as np

from popxl.ops import _checks
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor, constant

_FLOAT_ONNX = {"float32": 1, "float16": 10, "float64": 11}


def _check_seed(name, seed):
    from popxl.dtypes import uint32
    _checks.tensor(name, seed, "seed_tensor")
    if seed.dtype != uint32 or seed.shape != (2,):
        raise ValueError(f"{name}: seed tensor '{seed.id}' must be uint32 (2,), got {seed.dtype.name} {seed.shape}")


def _random(name, op_type, seed, shape, dtype, attrs):
    from popxl.dtypes import dtype as _dtype
    _check_seed(name, seed)
    dt = _dtype.as_dtype(dtype)
    if dt.name not in _FLOAT_ONNX:
        raise TypeError(f"{name}: dtype {dt.name} is not float16, float32 or float64")
    shape = [int(d) for d in shape]
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: shape {shape} has a negative dimension")
    attrs.update({"shape": shape, "dtype": _FLOAT_ONNX[dt.name]})
    return _op(op_type, [seed], attrs, domain=_GC, name=name)[0]


def random_uniform(seed_tensor: Tensor, shape: Tuple[int, ...], low: float = 0.0, high: float = 1.0,
                   dtype=None) -> Tensor:
    """A tensor of `shape` drawn uniformly from [low, high), determined by seed_tensor."""
    if not low <= high:
        raise ValueError(f"random_uniform: low {low} must not exceed high {high}")
    return _random("random_uniform", "RandomUniformSeeded", seed_tensor, shape, dtype or "float32",
                   {"low": float(low), "high": float(high)})


def random_normal(seed_tensor: Tensor, shape: Tuple[int, ...], mean: float = 0.0, std: float = 1.0,
                  dtype=None) -> Tensor:
    """A tensor of `shape` drawn from N(mean, std**2), determined by seed_tensor."""
    if not std >= 0:
        raise ValueError(f"random_normal: std {std} must not be negative")
    return _random("random_normal", "RandomNormalSeeded", seed_tensor, shape, dtype or "float32",
                   {"mean": float(mean), "scale": float(std)})


def split_random_seed(seed: Tensor, n: int = 2) -> Tuple[Tensor, ...]:
    """n new seeds derived from `seed` (each draws values independent of the others and of seed's)."""
    _check_seed("split_random_seed", seed)
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"split_random_seed: n={n!r} must be a positive int")
    return tuple(_op("ModifyRandomSeed", [seed], {"modifier": i}, domain=_GC, name="split_seed")[0]
                 for i in range(int(n)))


def _masked(name, t, seed, mask_shape, p):
    from popxl.ops._core import mul
    from popxl.ops._math import where
    _checks.floating(name, t)
    if not 0 <= p < 1:
        raise ValueError(f"{name}: probability {p} for tensor '{t.id}' must be in [0, 1)")
    if p == 0:
        return _op("Nop", [t], domain=_GC, name=name)[0]
    u = random_uniform(seed, mask_shape, dtype=t.dtype)
    keep = _op("GreaterOrEqual", [u, constant(np.asarray(p, t.dtype.as_numpy()))], version=16)[0]
    scaled = mul(t, constant(np.asarray(1.0 / (1.0 - p), t.dtype.as_numpy())))
    return where(keep, scaled, constant(np.zeros((), t.dtype.as_numpy())))


def dropout(t: Tensor, seed_tensor: Tensor, p: float) -> Tensor:
    """Each element of t zeroed with probability p, the others scaled by 1 / (1 - p); the mask is
    determined by seed_tensor. Gradient: dy masked and scaled the same way."""
    return _masked("dropout", t, seed_tensor, t.shape, p)


def shaped_dropout(t: Tensor, seed_tensor: Tensor, shape, ratio: float) -> Tensor:
    """dropout with a mask of `shape` broadcast (numpy rules) to t's shape: whole slices dropped together."""
    shape = tuple(int(d) for d in shape)
    _checks.tensor("shaped_dropout", t)
    try:
        if np.broadcast_shapes(shape, t.shape) != t.shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"shaped_dropout: mask shape {shape} does not broadcast to tensor '{t.id}' {t.shape}") \
            from None
    return _masked("shaped_dropout", t, seed_tensor, shape, ratio)
