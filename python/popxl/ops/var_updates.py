"""popxl.ops.var_updates: ops that update a tensor (usually a variable) in place and return it."""
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor


def copy_var_update_(t: Tensor, X: Tensor) -> Tensor:
    """t := X in place (same shape and dtype); returns the updated t."""
    return _op("CopyVarUpdate", [t, X], domain=_GC, name=f"{t.name}_copy")[0]
