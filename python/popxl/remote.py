"""Streaming memory: remote buffers, remote variables and replica-sharded (RTS) variables.

A remote buffer is `entries` slots of one shape and type, one set per replica. A remote variable is a
Variable whose value lives in one slot (`offset`) of a buffer: ops reach it only through
``ops.remote_load`` / ``ops.remote_store``. A replica-sharded variable is split over the replicas of its
group (``shard_over`` of them): each replica holds one flat shard, zero padded to equal sizes. The host
always sees the full value (``shape_on_host``, or one per replica with retrieval mode "all_replicas");
``Session`` sends each replica its group's value or shard on ``weights_from_host`` and puts the full
value back together on ``weights_to_host``. A replica_sharded_variable and its shard are one tensor.

On the CPU a remote buffer is memory the executor keeps for each replica between runs; the entry of a
remote variable is the variable's own device buffer, so it is not stored twice."""
from typing import Dict, List, Optional, Tuple, Union

import numpy as np

import popart_core
from popxl import context
from popxl.dtypes import dtype as _dtype
from popxl.tensor import Tensor, Variable, _info, _to_array

_TensorData = Union[np.ndarray, float, int, list]


class RemoteBuffer:
    """`entries` slots for tensors of shape `tensor_shape` and type `tensor_dtype` in streaming memory,
    in the current graph's Ir (one set of slots per replica)."""

    def __init__(self, tensor_shape, tensor_dtype, entries: int = 1):
        ir = context.get_current_graph().ir
        self._ir = ir
        self._id = len(_buffers(ir))
        self._meta_shape: Tuple[int, ...] = ()
        self.set_remote_buffer_info(tensor_shape, tensor_dtype, entries)
        _buffers(ir).append(self)

    def set_remote_buffer_info(self, tensor_shape, tensor_dtype, entries: int = 1) -> None:
        """Sets the shape, type and number of entries of the buffer's slots."""
        shape = tuple(int(d) for d in tensor_shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"remote buffer {self._id}: tensor_shape {shape} has a negative dimension")
        if isinstance(entries, bool) or not isinstance(entries, (int, np.integer)) or entries < 1:
            raise ValueError(f"remote buffer {self._id}: entries must be a positive int, got {entries!r}")
        self._check_unfrozen()
        held = [p for p in getattr(self._ir, "_remote_placements", {}).values() if p.buffer is self]
        if any(p.offset >= entries or (shape, _dtype.as_dtype(tensor_dtype)) != (p.buffer._shape, p.buffer._dtype)
               for p in held):
            raise ValueError(f"{self.name}: variables are kept in it ({', '.join(p.var_id for p in held)}); its "
                             "slots can grow in number but not change shape or type")
        self._shape, self._dtype, self._entries = shape, _dtype.as_dtype(tensor_dtype), int(entries)

    def _check_unfrozen(self):
        if getattr(self._ir, "_frozen", False):
            raise popart_core.popart_exception(f"remote buffer {self._id}: the Ir belongs to a Session now and "
                                               "its buffers cannot change")

    @property
    def remote_buffer_id(self) -> int:
        """The buffer's number in its Ir."""
        return self._id

    @property
    def tensor_shape(self) -> Tuple[int, ...]:
        """The shape of each slot."""
        return self._shape

    @property
    def tensor_dtype(self) -> _dtype:
        """The type of each slot."""
        return self._dtype

    @property
    def entries(self) -> int:
        """The number of slots."""
        return self._entries

    @entries.setter
    def entries(self, value: int) -> None:
        self.set_remote_buffer_info(self._shape, self._dtype, value)

    @property
    def meta_shape(self) -> Tuple[int, ...]:
        """For a buffer of replica shards: the shape of the full (unsharded) tensor; () otherwise."""
        return self._meta_shape

    @meta_shape.setter
    def meta_shape(self, shape) -> None:
        self._check_unfrozen()
        self._meta_shape = tuple(int(d) for d in shape)

    @property
    def name(self) -> str:
        return f"remote_buffer_{self._id}"

    def validate_tensor_matches_buffer(self, t: Tensor, num_shards: int = 1) -> None:
        """Raises ValueError unless tensor `t` (or one of `num_shards` flat shards of it) fits a slot."""
        shape = tuple(t.shape)
        if num_shards > 1:
            shape = (_shard_elements(int(np.prod(shape, dtype=np.int64)), num_shards),)
        if shape != self._shape or t.dtype != self._dtype:
            what = f"a shard ({num_shards} shards) of tensor '{t.id}'" if num_shards > 1 else f"tensor '{t.id}'"
            raise ValueError(f"{what} is {t.dtype.name} {shape}, but the slots of {self.name} are "
                             f"{self._dtype.name} {self._shape}")

    def _check_offset(self, offset: int, what: str) -> int:
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            raise TypeError(f"{what}: offset into {self.name} must be an int or an int tensor, got {offset!r}")
        if not 0 <= offset < self._entries:
            raise ValueError(f"{what}: offset {offset} is out of range for {self.name}, which has {self._entries} "
                             f"entries")
        return int(offset)

    def _entry_info(self):
        return _info(self._dtype, self._shape)

    def __repr__(self):
        return f"RemoteBuffer[{self._id}: {self._entries} x {self._dtype.name} {self._shape}]"


def _buffers(ir) -> List[RemoteBuffer]:
    if not hasattr(ir, "_remote_buffers"):
        ir._remote_buffers = []
    return ir._remote_buffers


class _Placement:
    """Where a remote or sharded variable's device value lives (entry `offset` of `buffer`) and how its
    host value maps onto the replicas. `host` holds one value per group (shape_on_host); with retrieval
    mode "all_replicas" `replicas` holds one value per replica as well (shape (replication_factor,
    *value_shape)), which the host reads and may write."""

    def __init__(self, var_id, host, grouping, shard_over, sharded, all_replicas, buffer=None, offset=0):
        self.var_id, self.grouping = var_id, grouping
        self.shard_over, self.sharded, self.all_replicas = shard_over, sharded, all_replicas
        self.buffer, self.offset = buffer, offset
        self.set_groups(host)

    @property
    def value_shape(self) -> Tuple[int, ...]:
        """The shape of one group's (one replica's) full value."""
        return self.host.shape[1:] if self.grouping.num_groups > 1 else self.host.shape

    def set_groups(self, host: np.ndarray) -> None:
        """The host value := `host`, one value per group; every replica takes its group's value."""
        self.host = host
        groups = host if self.grouping.num_groups > 1 else host[None]
        self.replicas = groups[np.asarray(self.grouping.assignment)] if self.all_replicas else None

    def set_replicas(self, replicas: np.ndarray) -> None:
        """The host value := one value per replica ("all_replicas")."""
        self.check_replicas(replicas)
        self.replicas = replicas
        first = replicas[self._first_members()]
        self.host = first if self.grouping.num_groups > 1 else first[0]

    def check_replicas(self, replicas: np.ndarray) -> None:
        """Raises ValueError unless the replicas that hold the shards of one copy of a sharded variable
        are given the same value."""
        if self.sharded:
            for copy in self._copies():
                bad = [r for r in copy[1:] if not np.array_equal(replicas[r], replicas[copy[0]])]
                if bad:
                    raise ValueError(f"variable '{self.var_id}': replicas {copy} hold the shards of one copy of it, "
                                     f"so they need the same value; replica {bad[0]} differs from replica {copy[0]}")

    def host_value(self) -> np.ndarray:
        """What the host reads: one value per group, or per replica ("all_replicas"; no leading axis for a
        single replica)."""
        if not self.all_replicas:
            return self.host.copy()
        return (self.replicas if len(self.replicas) > 1 else self.replicas[0]).copy()

    def replica_value(self, replica: int, entry_shape) -> np.ndarray:
        """The value global replica `replica` holds: its (group's) value, or its shard of it."""
        if self.replicas is not None:
            value = self.replicas[replica]
        else:
            g = self.grouping.assignment[replica]
            value = self.host[g] if self.grouping.num_groups > 1 else self.host
        if not self.sharded:
            return np.ascontiguousarray(value)
        k = self._members(self.grouping.assignment[replica]).index(replica) % self.shard_over
        flat = _padded(value.reshape(-1), self.shard_over)
        n = flat.size // self.shard_over
        return np.ascontiguousarray(flat[k * n:(k + 1) * n].reshape(entry_shape))

    def from_replicas(self, read) -> None:
        """The host value := the device values, from `read(replica)` of every (global) replica: each
        group's value from its first replica (or first `shard_over` replicas put together); with
        "all_replicas", each replica's value from itself (or from the replicas of its copy)."""
        if self.all_replicas:
            self.set_replicas(np.stack([self._copy_value(self._copy_of(r), read)
                                        for r in range(len(self.grouping.assignment))]))
            return
        groups = [self._copy_value(self._members(g)[:self.shard_over], read) for g in range(self.grouping.num_groups)]
        self.host = np.stack(groups) if self.grouping.num_groups > 1 else groups[0]

    def _copy_value(self, copy: List[int], read) -> np.ndarray:
        if not self.sharded:
            return read(copy[0])
        flat = np.concatenate([read(r).reshape(-1) for r in copy])
        return flat[:int(np.prod(self.value_shape, dtype=np.int64))].reshape(self.value_shape)

    def _copy_of(self, replica: int) -> List[int]:
        """The replicas whose shards make up the copy `replica` holds part of (just `replica` unsharded)."""
        if not self.sharded:
            return [replica]
        return next(c for c in self._copies() if replica in c)

    def _copies(self) -> List[List[int]]:
        """The sets of `shard_over` replicas that each hold one sharded copy of the variable."""
        copies = []
        for g in range(self.grouping.num_groups):
            members = self._members(g)
            copies += [members[i:i + self.shard_over] for i in range(0, len(members), self.shard_over)]
        return copies

    def _first_members(self) -> List[int]:
        return [self._members(g)[0] for g in range(self.grouping.num_groups)]

    def _members(self, g: int) -> List[int]:
        return [r for r, a in enumerate(self.grouping.assignment) if a == g]


def _placements(ir) -> Dict[str, _Placement]:
    if not hasattr(ir, "_remote_placements"):
        ir._remote_placements = {}
    return ir._remote_placements


def _shard_elements(nelms: int, shard_over: int) -> int:
    return -(-nelms // shard_over)


def _padded(flat: np.ndarray, parts: int) -> np.ndarray:
    n = _shard_elements(flat.size, parts) * parts
    return flat if n == flat.size else np.concatenate([flat, np.zeros(n - flat.size, flat.dtype)])


def remote_buffer(tensor_shape, tensor_dtype, entries: int = 1) -> RemoteBuffer:
    """A new remote buffer of `entries` slots of `tensor_shape` and `tensor_dtype`."""
    return RemoteBuffer(tensor_shape, tensor_dtype, entries)


def _grouping(ir, replica_grouping, what: str):
    if replica_grouping is None:
        return ir.replica_grouping(group_size=ir.replication_factor)
    from popxl.replica_grouping import ReplicaGrouping
    if not isinstance(replica_grouping, ReplicaGrouping):
        raise TypeError(f"{what}: replica_grouping must be a popxl.ReplicaGrouping, got {replica_grouping!r}")
    if len(replica_grouping.assignment) != ir.replication_factor:
        raise ValueError(f"{what}: the replica grouping is for {len(replica_grouping.assignment)} replicas, the "
                         f"Ir has {ir.replication_factor}")
    return replica_grouping


def _shard_over(grouping, shard_over, what: str) -> int:
    n = grouping.group_size if shard_over is None else shard_over
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"{what}: shard_over must be a positive int, got {shard_over!r}")
    if grouping.group_size % n:
        raise ValueError(f"{what}: shard_over {n} does not divide the replica group size {grouping.group_size}")
    return int(n)


def _host_array(data, dtype, downcast: bool, grouping, what: str) -> np.ndarray:
    arr = _to_array(data, dtype)
    if dtype is None and downcast and arr.dtype in (np.float64, np.int64, np.uint64):
        arr = arr.astype({"f": np.float32, "i": np.int32, "u": np.uint32}[arr.dtype.kind])  # as PopXL does
    if dtype is not None and not downcast:
        src = np.asarray(data)
        if src.dtype != arr.dtype and src.dtype.itemsize > arr.dtype.itemsize:
            raise ValueError(f"{what}: data of type {src.dtype} would be narrowed to {arr.dtype} (downcast=False)")
    groups = grouping.num_groups
    if groups > 1 and (arr.ndim == 0 or arr.shape[0] != groups):
        raise ValueError(f"{what}: a variable of {groups} replica groups needs host data shaped (groups, ...) with "
                         f"{groups} first, got {arr.shape}")
    return arr


def _new_variable(g, name, dt, shape, first_value, what):
    """The IR tensor of a remote variable: a main-graph Variable of the slot's shape, whose device buffer
    on each replica is the slot (Session binds them)."""
    if not g._pb_graph.isMainGraph():
        raise ValueError(f"{what}: variables live in the main graph, not in sub-graph '{g.name}'")
    tid = g._new_id(name or "remote_variable")
    g._pb_graph.addVarInit(tid, _info(dt, shape), np.ascontiguousarray(first_value, dtype=dt.as_numpy()))
    return Variable(g._pb_graph.getTensor(tid), g)


def _remote(data, remote_buffer: RemoteBuffer, offset: int, dtype, name, downcast, replica_grouping,
            retrieval_mode, sharded: bool, shard_over, what: str) -> Variable:
    g = context.get_current_graph()
    g._check_mutable(what)
    ir = g.ir
    _check_retrieval(retrieval_mode, name, what)
    if isinstance(offset, RemoteBuffer) and not isinstance(remote_buffer, RemoteBuffer):
        remote_buffer, offset = offset, remote_buffer  # (data, offset, remote_buffer): unmistakable by type
    what = f"{what} '{name}'" if name else what  # errors name the variable
    if not isinstance(remote_buffer, RemoteBuffer):
        raise TypeError(f"{what}: expected a popxl.RemoteBuffer, got {type(remote_buffer).__name__}")
    if remote_buffer._ir is not ir:
        raise ValueError(f"{what}: {remote_buffer.name} belongs to another Ir")
    offset = remote_buffer._check_offset(offset, what)
    grouping = _grouping(ir, replica_grouping, what)
    shards = _shard_over(grouping, shard_over, what) if sharded else 1
    host = _host_array(data, dtype, downcast, grouping, what)
    value_shape = host.shape[1:] if grouping.num_groups > 1 else host.shape
    dt = remote_buffer.tensor_dtype
    entry = (_shard_elements(int(np.prod(value_shape, dtype=np.int64)), shards),) if sharded else value_shape
    if tuple(entry) != remote_buffer.tensor_shape or _dtype.as_dtype(host.dtype) != dt:
        sharding = f" split into {shards} shards of {entry}" if sharded else ""
        raise ValueError(f"{what}: data {_dtype.as_dtype(host.dtype).name} "
                         f"{tuple(value_shape)}{sharding} does not fit the slots of {remote_buffer.name} "
                         f"({dt.name} {remote_buffer.tensor_shape})")
    for other in _placements(ir).values():
        if other.buffer is remote_buffer and other.offset == offset:
            raise ValueError(f"{what}: entry {offset} of {remote_buffer.name} already holds variable "
                             f"'{other.var_id}'")
    placement = _Placement(None, host, grouping, shards, sharded, retrieval_mode == "all_replicas",
                           buffer=remote_buffer, offset=offset)
    var = _new_variable(g, name, dt, remote_buffer.tensor_shape, placement.replica_value(0, entry), what)
    placement.var_id = var.id
    _placements(ir)[var.id] = placement
    _set_settings(g, var.id, replica_grouping, retrieval_mode, what)
    if sharded:
        remote_buffer._meta_shape = tuple(value_shape)
        g._meta_shapes[var.id] = tuple(value_shape)
    from popxl.tensor_location import ReplicatedTensorSharding, TensorLocation, TensorStorage
    rts = ReplicatedTensorSharding.On if sharded else ReplicatedTensorSharding.Off
    g._locations[var.id] = TensorLocation(TensorStorage.OffChip, rts)
    return var


def _check_retrieval(retrieval_mode, name, what):
    if retrieval_mode not in (None, "one_per_group", "all_replicas"):
        raise ValueError(f"{what} '{name}': retrieval_mode {retrieval_mode!r} is not 'one_per_group' or "
                         "'all_replicas'")


def _set_settings(g, var_id, replica_grouping, retrieval_mode, what):
    if replica_grouping is not None or retrieval_mode is not None:
        g._variable_settings[var_id] = {"replica_grouping": replica_grouping, "retrieval_mode": retrieval_mode}


def remote_variable(data: _TensorData, remote_buffer: RemoteBuffer, offset: int = 0, dtype=None,
                    name: Optional[str] = None, downcast: bool = True, replica_grouping=None,
                    retrieval_mode: Optional[str] = None) -> Variable:
    """A variable with value `data` kept in entry `offset` of `remote_buffer` (load it with
    ops.remote_load). `remote_buffer` and `offset` given the other way round are taken by their types.
    With a `replica_grouping` of N > 1 groups, `data` has a leading dimension of N: one value per group.
    With `retrieval_mode` "all_replicas" the host reads (and may write) one value per replica, shape
    (replication_factor, *shape)."""
    return _remote(data, remote_buffer, offset, dtype, name, downcast, replica_grouping, retrieval_mode, False, 1,
                   "remote_variable")


def remote_replica_sharded_variable(data: _TensorData, remote_buffer: RemoteBuffer, offset: int = 0, dtype=None,
                                    name: Optional[str] = None, downcast: bool = True, replica_grouping=None,
                                    retrieval_mode: Optional[str] = None, shard_over: Optional[int] = None
                                    ) -> Variable:
    """A variable with value `data` split over the replicas of its group (`shard_over` of them, all by
    default): each replica keeps its flat shard in entry `offset` of `remote_buffer`, whose slots have the
    shard's shape. The host reads and writes the full value (one per replica, shape (replication_factor,
    *full shape), with `retrieval_mode` "all_replicas")."""
    return _remote(data, remote_buffer, offset, dtype, name, downcast, replica_grouping, retrieval_mode, True,
                   shard_over, "remote_replica_sharded_variable")


def replica_sharded_buffer(tensor_shape, tensor_dtype, replica_grouping=None, shard_over: Optional[int] = None,
                           entries: int = 1) -> RemoteBuffer:
    """A remote buffer for shards of tensors of (full) shape `tensor_shape`, each split over `shard_over`
    replicas of the grouping (all of a group by default)."""
    ir = context.get_current_graph().ir
    grouping = _grouping(ir, replica_grouping, "replica_sharded_buffer")
    n = _shard_over(grouping, shard_over, "replica_sharded_buffer")
    shape = tuple(int(d) for d in tensor_shape)
    buffer = RemoteBuffer((_shard_elements(int(np.prod(shape, dtype=np.int64)), n),), tensor_dtype, entries)
    buffer._meta_shape = shape
    return buffer


def replica_sharded_variable(data: _TensorData, dtype=None, name: Optional[str] = None, downcast: bool = True,
                             replica_grouping=None, retrieval_mode: Optional[str] = None,
                             shard_over: Optional[int] = None) -> Tuple[Variable, Tensor]:
    """A replica-sharded variable and the tensor of this replica's shard, which ops use directly: the shard
    is loaded when the weights go to the device and read back when they return to the host. Returns
    (variable, shard). The two are one tensor on the device: each replica holds one shard of memory."""
    what = "replica_sharded_variable"
    g = context.get_current_graph()
    g._check_mutable(what)
    ir = g.ir
    _check_retrieval(retrieval_mode, name, what)
    label = f"{what} '{name}'" if name else what  # errors name the variable
    grouping = _grouping(ir, replica_grouping, label)
    n = _shard_over(grouping, shard_over, label)
    host = _host_array(data, dtype, downcast, grouping, label)
    value_shape = host.shape[1:] if grouping.num_groups > 1 else host.shape
    dt = _dtype.as_dtype(host.dtype)
    buffer = replica_sharded_buffer(value_shape, dt, grouping, n)
    var = _remote(host, buffer, 0, dt, name, downcast, replica_grouping, retrieval_mode, True, n, what)
    return var, Tensor(var._pb_tensor, g)


# ---- for popxl.Session ----

def before_compile(ir) -> None:
    """Gives every RemoteLoad/RemoteStore op its buffer's entries and name (checked at run time)."""
    buffers = {b.remote_buffer_id: b for b in getattr(ir, "_remote_buffers", [])}
    if not buffers:
        return
    for g in ir._pb_ir.getAllGraphs():
        for op in g.getOps():
            if op.opType() in ("RemoteLoad", "RemoteStore") and op.hasAttribute("bufferName"):
                b = buffers[op.getAttribute("bufferid")]
                op.setAttribute("entries", b.entries)


def _local_replicas(ir) -> range:
    """The global indices of the replicas this instance runs."""
    return getattr(ir, "_local_replicas", range(ir.replication_factor))


def to_device(session) -> None:
    """Every local replica's remote buffers: each remote and sharded variable's value for that replica
    (its group's value, or its shard) in its entry, which is the variable's device buffer; zeros in the
    other entries."""
    ir = session.ir
    buffers = getattr(ir, "_remote_buffers", [])
    if not buffers:
        return
    pb = session._pb_session
    placements = _placements(ir).values()
    held = {(p.buffer.remote_buffer_id, p.offset) for p in placements}
    if not getattr(session, "_remote_entries_bound", False):
        for p in placements:
            pb._bindRemoteEntry(p.buffer.remote_buffer_id, p.offset, p.var_id)
        session._remote_entries_bound = True
    for local, replica in enumerate(_local_replicas(ir)):
        for b in buffers:
            zeros = np.zeros(b.tensor_shape, b.tensor_dtype.as_numpy())
            for e in range(b.entries):
                if (b.remote_buffer_id, e) not in held:
                    pb._writeRemoteEntry(b.remote_buffer_id, e, local, b._entry_info(), zeros)
        for p in placements:
            value = p.replica_value(replica, p.buffer.tensor_shape).astype(p.buffer.tensor_dtype.as_numpy(),
                                                                           copy=False)
            popart_core._setReplicaVariableData(pb, p.var_id, local, value)


def to_host(session) -> None:
    """The host value of every remote and sharded variable, from the replicas' slots: one value per group
    (its first replica, or its first `shard_over` replicas put together), and per replica for retrieval
    mode "all_replicas". Replicas of other instances are gathered over MPI."""
    ir = session.ir
    placements = _placements(ir)
    if not placements:
        return
    pb = session._pb_session
    local = range(len(_local_replicas(ir)))
    mine = {vid: [_read(pb, p, r) for r in local] for vid, p in placements.items()}
    every = _gather(ir, mine)
    for vid, p in placements.items():
        p.from_replicas(every[vid].__getitem__)


def _read(pb, p: _Placement, local: int) -> np.ndarray:
    """Replica `local`'s value of `p`: its remote entry or shard (the variable's device buffer)."""
    raw = popart_core._replicaVariableData(pb, p.var_id, local)
    return np.frombuffer(raw, dtype=p.buffer.tensor_dtype.as_numpy()).reshape(p.buffer.tensor_shape)


def _gather(ir, mine: Dict[str, List[np.ndarray]]) -> Dict[str, List[np.ndarray]]:
    """Every replica's values by global replica index, gathered from all instances."""
    from popxl._replica_weights import gather_replicas
    instances = getattr(ir, "_instances", None)
    return gather_replicas(instances.count if instances is not None else 1, mine)


def sends(ir, tensor_id: str) -> bool:
    """Whether popxl.remote sends `tensor_id`'s per-replica values: a remote or sharded variable (also the
    shard of a replica_sharded_variable, which is the same tensor)."""
    return tensor_id in getattr(ir, "_remote_placements", {})


def placement(ir, var_id: str) -> Optional[_Placement]:
    """The placement of remote or sharded variable `var_id`, or None for other tensors."""
    return getattr(ir, "_remote_placements", {}).get(var_id)
