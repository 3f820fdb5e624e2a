"""The ops of popxl.ops, each lowered to one IR op of the registry (OperatorIdentifier + attributes)."""
from typing import Dict, Mapping, Optional

import numpy as np

from popxl import context
from popxl.tensor import Tensor, constant

_ONNX = "ai.onnx"
_GC = "ai.graphcore"


def _as_tensor(g, x, like: Optional[Tensor]):
    if isinstance(x, Tensor):
        g._check_in_graph(x, "op input")
        return x
    return constant(np.asarray(x, dtype=like.dtype.as_numpy()) if like is not None else x)


def _op(op_type, inputs, attrs=None, domain=_ONNX, n_out=1, name=None, version=0, out_ids=None):
    """Creates op `domain.op_type` connected to `inputs` in the current graph; returns its outputs."""
    g = context.get_current_graph()
    g._check_mutable(f"creating op {op_type}")
    like = next((t for t in inputs if isinstance(t, Tensor)), None)
    ins = [_as_tensor(g, x, like) for x in inputs]
    outs = out_ids if out_ids is not None else [g._new_id(f"{name or op_type}_out{i}" if n_out > 1 else
                                                            (name or op_type)) for i in range(n_out)]
    pb_op = g._pb_graph.createConnectedOp(domain, op_type, version, {i: t.id for i, t in enumerate(ins)},
                                          {i: o for i, o in enumerate(outs)}, attrs or {}, name or "")
    _sequence(g, pb_op)
    return [g._wrap(o) for o in outs]


def _order_modifications(g, pb_op):
    """Keeps creation order around in-place changes: an op that modifies a tensor runs after the ops
    created before it that read the tensor (or an alias of it), and ops created after it that read the
    tensor run after it."""
    ins = pb_op.getInputIds()
    outs = pb_op.getOutputIds()
    roots = g._alias_roots
    for i, tid in ins.items():
        last = g._last_modifier.get(roots.get(tid, tid))
        if last is not None and last.id != pb_op.id:
            g._pb_graph.addTopoCon(last, pb_op)
    for i, tid in ins.items():
        if not pb_op.modifies(i):
            continue
        root = roots.get(tid, tid)
        for alias in [t for t, r in roots.items() if r == root] + [root]:
            if not g._pb_graph.hasTensor(alias):
                continue
            for reader in g._pb_graph.getTensor(alias).consumers():
                if reader.id != pb_op.id:
                    g._pb_graph.addTopoCon(reader, pb_op)
        g._last_modifier[root] = pb_op
    for o, oid in outs.items():
        for i, tid in ins.items():
            if pb_op.aliases(i, o):
                roots[oid] = roots.get(tid, tid)


def _placement(g, pb_op):
    """Applies the ipu()/io_tiles() contexts to a new op and calls the graph's op-created hooks."""
    ipu = context._current_ipu()
    if ipu is not None:
        pb_op.setVirtualGraphId(ipu)
    tile_set = context._current_tile_set()
    if tile_set != "compute":
        g._tile_sets[pb_op.id] = tile_set
    for hook in list(g._op_created_hooks.values()):
        hook(pb_op)


def _sequence(g, pb_op):
    """Places `pb_op`, orders it around in-place changes, and inside in_sequence() after the previous op
    created in the block."""
    _placement(g, pb_op)
    _order_modifications(g, pb_op)
    if g._in_sequence:
        if g._last_op is not None:
            g._pb_graph.addTopoCon(g._last_op, pb_op)
        g._last_op = pb_op
    from popxl.ops._views import after_op
    after_op(g, pb_op)  # keeps the views of transpose_/slice_/concat_ in step


def _binary(op_type):
    def f(lhs, rhs):
        return _op(op_type, [lhs, rhs])[0]
    f.__name__ = op_type.lower()
    f.__doc__ = f"Elementwise {op_type} with numpy broadcasting."
    return f


add = _binary("Add")
sub = _binary("Sub")
mul = _binary("Mul")
div = _binary("Div")
pow = _binary("Pow")
greater = _binary("Greater")
less = _binary("Less")


def matmul(lhs: Tensor, rhs: Tensor, available_memory_proportion=None, output_type=None, partials_type=None):
    """Matrix product with numpy's matmul broadcasting; output_type (a float dtype) casts the result."""
    out = _op("MatMul", [lhs, rhs])[0]
    if output_type is not None:
        from popxl.dtypes import dtype as _dtype
        from popxl.ops._math import cast
        dt = _dtype.as_dtype(output_type)
        if not dt.is_floating_point:
            raise TypeError(f"matmul: output_type {dt.name} for '{out.id}' is not a floating point type")
        if dt != out.dtype:
            out = cast(out, dt)
    return out


def negate(t: Tensor) -> Tensor:
    """-t elementwise."""
    return _op("Neg", [t])[0]


def relu(t: Tensor) -> Tensor:
    """max(t, 0) elementwise."""
    return _op("Relu", [t])[0]


def add_(lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs += rhs in place (lhs is modified; returns the updated lhs as a new tensor)."""
    return _op("AddLhsInplace", [lhs, rhs], domain=_GC)[0]


def detach(t: Tensor) -> Tensor:
    """t, with no gradient flowing back through it."""
    return _op("Detach", [t], domain=_GC)[0]


def reshape(t: Tensor, shape) -> Tensor:
    """t with a new shape (one -1 dimension is inferred)."""
    shape_t = constant(np.asarray(shape, dtype=np.int64), name="shape")
    return _op("Reshape", [t, shape_t])[0]


def transpose(t: Tensor, permutation=None) -> Tensor:
    """t with its axes permuted (reversed by default)."""
    perm = list(permutation) if permutation is not None else list(reversed(range(t.rank)))
    return _op("Transpose", [t], {"perm": perm})[0]


def init(shape, dtype, name: Optional[str] = None, init_type: str = "zero") -> Tensor:
    """A new tensor of `shape` and `dtype` in the current graph, zero-filled (init_type "zero") or left
    undefined ("undef")."""
    from popxl.dtypes import dtype as _dtype
    kinds = {"undef": 0, "zero": 1}
    if init_type not in kinds:
        raise ValueError(f"init: init_type '{init_type}' is not one of {sorted(kinds)}")
    dt = _dtype.as_dtype(dtype)
    attrs = {"shape": [int(d) for d in shape], "data_type": int(dt._pb_dtype), "init_type": kinds[init_type]}
    return _op("Init", [], attrs, domain=_GC, name=name or "init")[0]


def host_load(h2d_stream, name: Optional[str] = None) -> Tensor:
    """The next value of host-to-device stream `h2d_stream` (in any graph: each run of the op reads the
    next of the run's `num_host_transfers` values)."""
    from popxl.streams import HostToDeviceStream
    if not isinstance(h2d_stream, HostToDeviceStream):
        raise TypeError(f"host_load: expected a HostToDeviceStream, got {type(h2d_stream).__name__}")
    g = context.get_current_graph()
    if h2d_stream._ir is not g.ir:
        raise ValueError(f"host_load: stream '{h2d_stream.tensor_id}' belongs to another Ir")
    dst = init(h2d_stream.shape, h2d_stream.dtype, name=f"{name or h2d_stream.tensor_id}_init", init_type="undef")
    return _op("HostLoad", [dst], {"streamTensorId": h2d_stream.tensor_id}, domain=_GC, name=name)[0]


def host_store(d2h_stream, t: Tensor) -> None:
    """Sends `t` to the host on device-to-host stream `d2h_stream`."""
    from popxl.streams import DeviceToHostStream
    if not isinstance(d2h_stream, DeviceToHostStream):
        raise TypeError(f"host_store: expected a DeviceToHostStream, got {type(d2h_stream).__name__}")
    g = context.get_current_graph()
    g._check_mutable("host_store")
    g._check_in_graph(t, f"host_store to '{d2h_stream.tensor_id}'")
    if tuple(t.shape) != d2h_stream.shape or t.dtype != d2h_stream.dtype:
        raise ValueError(f"host_store: tensor '{t.id}' ({t.dtype.name} {t.shape}) does not match stream "
                         f"'{d2h_stream.tensor_id}' ({d2h_stream.dtype.name} {d2h_stream.shape})")
    pb_op = g._pb_graph.createConnectedOp(_GC, "HostStore", 0, {0: t.id}, {}, {"streamTensorId": d2h_stream.tensor_id},
                                          "")
    _sequence(g, pb_op)
