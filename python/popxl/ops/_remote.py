"""popxl.ops.remote_load / remote_load_ / remote_store: moving tensors between a graph and the slots of a
remote buffer (popxl.RemoteBuffer). The offset is an int (checked against the buffer's entries now) or a
scalar int32/int64 tensor (checked when the op runs)."""
from typing import Optional, Union

import numpy as np

import popart
from popxl import context
from popxl.ops._core import _GC, _op, _sequence, init
from popxl.tensor import Tensor, constant

_Offset = Union[int, Tensor]
_log = popart.getLogger("python")


def _buffer(remote_buffer, g, what: str):
    from popxl.remote import RemoteBuffer
    if not isinstance(remote_buffer, RemoteBuffer):
        raise TypeError(f"{what}: expected a popxl.RemoteBuffer, got {type(remote_buffer).__name__}")
    if remote_buffer._ir is not g.ir:
        raise ValueError(f"{what}: {remote_buffer.name} belongs to another Ir")
    return remote_buffer


def _offset(remote_buffer, offset: _Offset, g, what: str) -> Tensor:
    if isinstance(offset, Tensor):
        g._check_in_graph(offset, f"{what} offset")
        if offset.dtype.name not in ("int32", "int64") or offset.nelms != 1:
            raise ValueError(f"{what}: offset tensor '{offset.id}' into {remote_buffer.name} must hold one int32 "
                             f"or int64 value, it is {offset.dtype.name} {offset.shape}")
        return offset
    index = remote_buffer._check_offset(offset, what)
    return constant(np.asarray(index, dtype=np.int32), name="offset")


def _store_arguments(remote_buffer, offset, t):
    """remote_store's (remote_buffer, offset, t), also from arguments given as (t, remote_buffer, offset)."""
    from popxl.remote import RemoteBuffer
    if isinstance(remote_buffer, Tensor) and isinstance(offset, RemoteBuffer):
        _log.info(f"remote_store: arguments taken as (t, remote_buffer, offset) from their types; the "
                  f"documented order is remote_store(remote_buffer, offset, t)")
        return offset, t, remote_buffer
    return remote_buffer, offset, t


def _attrs(remote_buffer) -> dict:
    return {"bufferid": remote_buffer.remote_buffer_id, "entries": remote_buffer.entries,
            "bufferName": remote_buffer.name}


def remote_load(remote_buffer, offset: _Offset, name: Optional[str] = None) -> Tensor:
    """A new tensor holding entry `offset` of `remote_buffer`."""
    g = context.get_current_graph()
    b = _buffer(remote_buffer, g, "remote_load")
    off = _offset(b, offset, g, "remote_load")
    dst = init(b.tensor_shape, b.tensor_dtype, name=f"{name or 'remote_load'}_init", init_type="undef")
    out = _op("RemoteLoad", [dst, off], _attrs(b), domain=_GC, name=name or "remote_load")[0]
    if b.meta_shape:
        g._meta_shapes[out.id] = b.meta_shape
    return out


def remote_load_(remote_buffer, offset: _Offset, t: Tensor) -> Tensor:
    """Loads entry `offset` of `remote_buffer` into `t` in place; returns `t` updated."""
    from popxl.ops.var_updates import copy_var_update_
    g = context.get_current_graph()
    b = _buffer(remote_buffer, g, "remote_load_")
    g._check_in_graph(t, "remote_load_")
    b.validate_tensor_matches_buffer(t)
    loaded = remote_load(b, offset, name=f"{t.id}_remote_load")
    return copy_var_update_(t, loaded)


def remote_store(remote_buffer, offset: _Offset, t: Tensor) -> None:
    """Stores `t` in entry `offset` of `remote_buffer`. The order (t, remote_buffer, offset) is accepted
    too: a Tensor first and a RemoteBuffer second can mean nothing else."""
    remote_buffer, offset, t = _store_arguments(remote_buffer, offset, t)
    g = context.get_current_graph()
    g._check_mutable("remote_store")
    b = _buffer(remote_buffer, g, "remote_store")
    g._check_in_graph(t, "remote_store")
    b.validate_tensor_matches_buffer(t)
    off = _offset(b, offset, g, "remote_store")
    pb_op = g._pb_graph.createConnectedOp(_GC, "RemoteStore", 0, {0: t.id, 1: off.id}, {}, _attrs(b),
                                          f"remote_store_{b.remote_buffer_id}")
    _sequence(g, pb_op)
