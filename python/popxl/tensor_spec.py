"""TensorSpec: the shape and dtype of a tensor, without a tensor."""
from typing import NamedTuple, Tuple

from popxl.dtypes import dtype


class TensorSpec(NamedTuple):
    """Shape and dtype (and meta shape) describing a tensor."""

    shape: Tuple[int, ...]
    dtype: dtype
    meta_shape: Tuple[int, ...] = ()
