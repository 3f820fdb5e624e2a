"""popxl.ops.collectives: data exchange between replicas (all-reduce, all-gather, reduce-scatter, slices),
over all replicas or a ReplicaGrouping, and the all-reduce across IPUs of one replica."""
from typing import List, Optional

import numpy as np

import popart_core
from popxl import context
from popxl.ops._core import _GC, _op
from popxl.tensor import Tensor

CommGroupType = popart_core.CommGroupType

# PopART's CollectiveOperator values.
_OPERATORS = {"add": 0, "mean": 1, "mul": 2, "min": 3, "max": 4, "logical_and": 5, "logical_or": 6,
              "square_add": 7, "local": 8}


class CommGroup(popart_core.CommGroup):
    """PopART's description of a replica group (type and size); see ReplicaGrouping for PopXL's."""

    def toReplicaGrouping(self, replication_factor: int):
        """The ReplicaGrouping of these groups for `replication_factor` replicas."""
        from popxl.replica_grouping import ReplicaGrouping
        t, k, n = self.type, self.replicaGroupSize, replication_factor
        if t == CommGroupType.All:
            return ReplicaGrouping._from_stride(n, 1, n)
        if t == CommGroupType.Ungrouped:
            return ReplicaGrouping._from_stride(n, 1, 1)
        if k < 1 or n % k:
            raise ValueError(f"CommGroup({t}, {k}): the group size does not divide {n} replicas")
        if t == CommGroupType.Consecutive:
            return ReplicaGrouping._from_stride(n, 1, k)
        return ReplicaGrouping._from_stride(n, n // k, k)


def _comm_group(group, what: str) -> List[int]:
    """[CommGroupType, size] for a ReplicaGrouping (or None: all replicas) that a CommGroup describes."""
    g = context.get_current_graph()
    n = g.ir.replication_factor
    if group is None:
        return [int(CommGroupType.All), n]
    if isinstance(group, popart_core.CommGroup):
        return [int(group.type), int(group.replicaGroupSize)]
    size, stride = _stride_and_size(group, n, what)
    if size == 1:
        return [int(CommGroupType.Ungrouped), 1]
    if stride == 1:
        return [int(CommGroupType.All if size == n else CommGroupType.Consecutive), size]
    if stride * size == n:
        return [int(CommGroupType.Orthogonal), size]
    raise ValueError(f"{what}: replica grouping stride {stride}, group size {size} has no collective group "
                     f"(CommGroup) over {n} replicas")


def _stride_and_size(group, n: int, what: str):
    """(group size, stride) of a ReplicaGrouping for the current Ir's `n` replicas (checked)."""
    if len(group.assignment) != n:
        raise ValueError(f"{what}: the grouping {group} is for {len(group.assignment)} replicas, the Ir has {n}")
    if not group.is_const:
        raise ValueError(f"{what}: the grouping {group} has no constant stride: collectives need groups of "
                         "replicas start + k * stride")
    size, stride = group.group_size, group.stride
    if n % (size * stride):
        raise ValueError(f"{what}: the grouping {group} (stride {stride}, group size {size}) does not divide the "
                         f"replication factor {n}")
    return size, stride


def _group_attrs(group, what: str) -> dict:
    """The op attributes naming the replicas a collective runs over: a CommGroup when one describes the
    grouping, else the grouping's [stride, group size] (attribute __collectiveReplicaGrouping)."""
    if group is None or isinstance(group, popart_core.CommGroup):
        return {"__collectiveCommGroup": _comm_group(group, what)}
    size, stride = _stride_and_size(group, context.get_current_graph().ir.replication_factor, what)
    try:
        return {"__collectiveCommGroup": _comm_group(group, what)}
    except ValueError:
        return {"__collectiveReplicaGrouping": [stride, size]}


def _group_size(attrs: dict) -> int:
    """Replicas per group of the attributes _group_attrs made."""
    if "__collectiveReplicaGrouping" in attrs:
        return attrs["__collectiveReplicaGrouping"][1]
    kind, size = attrs["__collectiveCommGroup"]
    return 1 if kind == int(CommGroupType.Ungrouped) else size


def _operator(op: str, what: str) -> int:
    if op not in _OPERATORS:
        raise ValueError(f"{what}: op '{op}' is not one of {', '.join(_OPERATORS)}")
    return _OPERATORS[op]


def replicated_all_reduce(t: Tensor, op: str = "add", group=None) -> Tensor:
    """Every replica of `group` gets the reduction (`op`: add, mean, mul, min, max, ...) of `t` over the
    group's replicas."""
    attrs = {"__collectiveOperator": _operator(op, "replicated_all_reduce"),
             **_group_attrs(group, "replicated_all_reduce")}
    return _op("ReplicatedAllReduce", [t], attrs, domain=_GC)[0]


def replicated_all_reduce_(t: Tensor, op: str = "add", group=None) -> Tensor:
    """replicated_all_reduce in place: `t` holds the result."""
    attrs = {"__collectiveOperator": _operator(op, "replicated_all_reduce_"),
             **_group_attrs(group, "replicated_all_reduce_")}
    return _op("ReplicatedAllReduceInplace", [t], attrs, domain=_GC)[0]


def replicated_all_gather(t: Tensor, group=None, output_shape="auto") -> Tensor:
    """The `t` of every replica of the group, concatenated (flattened: shape [group size * nelms], or
    `output_shape`; "auto" gives [group size, *t.shape])."""
    attrs = _group_attrs(group, "replicated_all_gather")
    y = _op("ReplicatedAllGather", [t], attrs, domain=_GC)[0]
    size = _group_size(attrs)
    meta = tuple(t.meta_shape)
    if output_shape == "auto" and meta and _shard_elements(meta, size) == t.nelms:
        # the shards of a replica-sharded tensor: the full tensor, without the padding of the last shard
        from popxl.ops import reshape, slice as _slice
        full = int(np.prod(meta, dtype=np.int64))
        if full != y.nelms:
            y = _slice(reshape(y, (y.nelms,)), 0, full, 1, 0)
        return reshape(y, meta)
    if output_shape == "auto":
        output_shape = (size,) + tuple(t.shape)
    if output_shape is not None and tuple(output_shape) != tuple(y.shape):
        from popxl.ops import reshape
        y = reshape(y, output_shape)
    return y


def _shard_elements(meta_shape, parts: int) -> int:
    """Elements of one of `parts` equal (zero-padded) flat shards of a tensor of `meta_shape`."""
    return -(-int(np.prod(meta_shape, dtype=np.int64)) // parts)


def _mark_sharded(shard: Tensor, full: Tensor) -> Tensor:
    """Records that `shard` is a replica shard of a tensor shaped like `full` (Tensor.meta_shape)."""
    shard._graph._meta_shapes[shard.id] = tuple(full.meta_shape or full.shape)
    return shard


def replicated_reduce_scatter(t: Tensor, op: str = "add", group=None,
                              configure_output_for_replicated_tensor_sharding: bool = False) -> Tensor:
    """The reduction of `t` over the group, flattened and split evenly (zero padded): each replica gets its
    slice (shape [ceil(nelms / group size)])."""
    attrs = {"__collectiveOperator": _operator(op, "replicated_reduce_scatter"),
             **_group_attrs(group, "replicated_reduce_scatter")}
    y = _op("ReplicatedReduceScatter", [t], attrs, domain=_GC)[0]
    return _mark_sharded(y, t) if configure_output_for_replicated_tensor_sharding else y


def replicated_slice(t: Tensor, axis: int = 0, group=None) -> Tensor:
    """Each replica's part of `t` split evenly along `axis` over the replicas of the group (local op)."""
    return _local_slice(t, axis, group, "replicated_slice")


def replica_sharded_slice(t: Tensor, group=None) -> Tensor:
    """Each replica's shard of flattened `t` (zero padded to a multiple of the group size), as replicated
    tensor sharding lays it out."""
    attrs = {"__collectiveOperator": _OPERATORS["local"], **_group_attrs(group, "replica_sharded_slice")}
    return _mark_sharded(_op("ReplicatedReduceScatter", [t], attrs, domain=_GC)[0], t)


def _local_slice(t: Tensor, axis: int, group, what: str) -> Tensor:
    """Slice `axis` by the replica's index in its group: a reduce-scatter with the Local operator of the
    tensor moved to put `axis` first, then reshaped."""
    from popxl.ops import reshape, transpose
    if not -t.rank <= axis < t.rank:
        raise ValueError(f"{what}: axis {axis} is out of range for tensor '{t.id}' of rank {t.rank}")
    axis %= t.rank
    attrs = _group_attrs(group, what)
    size = _group_size(attrs)
    if t.shape[axis] % size:
        raise ValueError(f"{what}: dimension {axis} of '{t.id}' ({t.shape[axis]}) does not split over {size} "
                         "replicas")
    perm = [axis] + [d for d in range(t.rank) if d != axis]
    moved = transpose(t, perm) if axis else t
    flat = _op("ReplicatedReduceScatter", [moved],
               {"__collectiveOperator": _OPERATORS["local"], **attrs}, domain=_GC)[0]
    part = (t.shape[axis] // size,) + tuple(t.shape[d] for d in perm[1:])
    out = reshape(flat, part)
    inverse = list(np.argsort(perm))
    return transpose(out, inverse) if axis else out


def _all_reduce(ts: List[Tensor], ipus: Optional[List[int]], op: str, what: str, **flags) -> List[Tensor]:
    """The ai.graphcore AllReduce op over `ts` (one tensor per IPU of a replica)."""
    ts = list(ts)
    if not ts:
        raise ValueError(f"{what}: no tensors")
    if op not in ("add", "mean", "mul", "min", "max"):
        raise ValueError(f"{what}: op '{op}' is not one of add, mean, mul, min, max")
    attrs = {"__collectiveOperator": _OPERATORS[op], **{k: int(v) for k, v in flags.items()}}
    if ipus is not None:
        if len(ipus) != len(ts):
            raise ValueError(f"{what}: {len(ts)} tensors but {len(ipus)} ipus")
        attrs["ipus"] = [int(i) for i in ipus]
    return _op("AllReduce", ts, attrs, domain=_GC, n_out=len(ts))


def all_reduce(ts: List[Tensor], ipus: Optional[List[int]] = None, op: str = "add") -> List[Tensor]:
    """The reduction (`op`: add, mean, mul, min or max) of tensors `ts`, one per IPU of a replica, handed
    to every IPU. Its gradient is the same reduction (add or mean) of the outputs' gradients."""
    return _all_reduce(ts, ipus, op, "all_reduce")


def all_reduce_identical_inputs(ts: List[Tensor], ipus: Optional[List[int]] = None,
                                op: str = "add") -> List[Tensor]:
    """all_reduce of tensors known to be equal on every IPU: each output is its own input, while the
    gradient is still the reduction of the outputs' gradients."""
    return _all_reduce(ts, ipus, op, "all_reduce_identical_inputs", identicalInputs=True)


def all_reduce_identical_grad_inputs(ts: List[Tensor], ipus: Optional[List[int]] = None,
                                     op: str = "add") -> List[Tensor]:
    """all_reduce whose outputs' gradients are known to be equal on every IPU: the forward reduces, and
    each input's gradient is its own output's gradient."""
    return _all_reduce(ts, ipus, op, "all_reduce_identical_grad_inputs", identicalGradInputs=True)
