"""popxl.random_seed: host-side seeds for the random ops (uint32 pairs holding a 64-bit value)."""
from typing import Optional

import numpy as np


def uint64_to_two_uint32(seed: int) -> np.ndarray:
    """The 64-bit `seed` as a uint32 array [high word, low word]."""
    if not 0 <= int(seed) < 2 ** 64:
        raise ValueError(f"seed {seed} is not a uint64 value")
    s = int(seed)
    return np.array([s >> 32, s & 0xFFFFFFFF], dtype=np.uint32)


def two_uint32_to_uint64(v) -> int:
    """The 64-bit value of a uint32 pair [high word, low word]."""
    v = np.asarray(v, dtype=np.uint32)
    if v.shape != (2,):
        raise ValueError(f"expected two uint32 values, got shape {v.shape}")
    return (int(v[0]) << 32) | int(v[1])


def create_seeds(seed: Optional[int] = None, batches_per_step: int = 1, gradient_accumulation_factor: int = 1,
                 replicas: int = 1) -> np.ndarray:
    """Seeds to stream to the device: uint32 of shape (replicas, batches_per_step, gradient_accumulation_factor,
    2) with the dimensions of size 1 dropped, each a different seed derived from `seed` (random when None)."""
    for name, v in (("batches_per_step", batches_per_step), ("gradient_accumulation_factor",
                                                             gradient_accumulation_factor), ("replicas", replicas)):
        if int(v) < 1:
            raise ValueError(f"create_seeds: {name} must be >= 1, got {v}")
    rng = np.random.default_rng(seed)
    dims = [d for d in (replicas, batches_per_step, gradient_accumulation_factor) if d > 1]
    return rng.integers(0, 2 ** 32, size=tuple(dims) + (2,), dtype=np.uint32)
