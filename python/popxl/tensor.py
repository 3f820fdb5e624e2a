"""popxl.Tensor and the functions that create tensors (constant, variable, graph inputs/outputs)."""
from typing import Optional

import numpy as np

import popart_core
from popxl import context
from popxl.dtypes import dtype as _dtype, float32 as _float32

_TT = popart_core._ir.TensorType


class Tensor:
    """A tensor of a popxl graph (wraps a popart._internal.ir Tensor as `_pb_tensor`)."""

    def __init__(self, pb_tensor, graph):
        self._id = pb_tensor.id
        self._graph = graph

    @property
    def _pb_tensor(self):
        """The bound IR tensor, looked up by id (a session's compilation may have removed it)."""
        pb_graph = self._graph._pb_graph
        if not pb_graph.hasTensor(self._id):
            raise popart_core.popart_exception(
                f"tensor '{self._id}' is no longer in graph '{self._graph.name}': compiling the Ir for a session "
                "removed it (nothing used it)")
        return pb_graph.getTensor(self._id)

    @staticmethod
    def _from_pb_tensor(pb_tensor) -> "Tensor":
        """The popxl tensor of a popart._internal.ir tensor of the current graph's Ir (for ops created through
        popart._internal.ir, e.g. a custom op's `op.outTensor(0)`)."""
        ir = context.get_current_graph().ir
        return ir.get_graph(pb_tensor.getGraph().id)._wrap(pb_tensor.id)

    # ---- properties ----
    @property
    def id(self) -> str:
        return self._id

    @property
    def name(self) -> str:
        return self._id

    @property
    def dtype(self) -> _dtype:
        return _dtype._from_pb(self._pb_tensor.info().dataType())

    @property
    def shape(self):
        return tuple(self._pb_tensor.info().shape())

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def nelms(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def spec(self):
        from popxl.tensor_spec import TensorSpec
        return TensorSpec(self.shape, self.dtype)

    @property
    def ir(self):
        return self._graph.ir

    @property
    def graph(self):
        return self._graph

    @property
    def T(self):
        """The tensor with its axes reversed (ops.transpose)."""
        return self.transpose()

    @property
    def T_(self):
        """A view of the tensor with its axes reversed (ops.transpose_)."""
        return self.transpose_()

    def transpose_(self, permutation=None):
        """ops.transpose_: a transposed view aliasing this tensor."""
        from popxl import ops
        return ops.transpose_(self, permutation)

    @property
    def ipu(self) -> int:
        """The IPU (virtual graph) of the op that produced the tensor, 0 when unplaced."""
        pb = self._pb_tensor
        if pb.hasProducer() and pb.getProducer().hasVirtualGraphId():
            return pb.getProducer().getVirtualGraphId()
        return 0

    @property
    def tile_set(self) -> str:
        """"io" when produced under io_tiles(), else "compute"."""
        pb = self._pb_tensor
        if pb.hasProducer():
            return self._graph._tile_sets.get(pb.getProducer().id, "compute")
        return "compute"

    @property
    def scope(self) -> str:
        """The name scope the tensor was created in ("" at top level)."""
        return self._id.rsplit("/", 1)[0] if "/" in self._id else ""

    @property
    def location_info(self):
        """The TensorLocation of the tensor (on chip, unsharded, unless set otherwise)."""
        from popxl.tensor_location import TensorLocation
        return self._graph._locations.get(self._id, TensorLocation())

    @property
    def in_sync_with_ipu(self) -> bool:
        """For variables: whether the host copy holds the device's latest values (True outside sessions)."""
        session = getattr(self.ir, "_session", None)
        return session is None or session._host_in_sync or not isinstance(self, Variable)

    def __repr__(self):
        return f"Tensor[{self.id} {self.dtype.name} {self.shape}]"

    def __hash__(self):
        return hash((id(self._graph), self._id))

    def __eq__(self, other):  # identity, as PopXL: tensors are dict keys
        return isinstance(other, Tensor) and other._id == self._id and other._graph is self._graph

    def __len__(self):
        if not self.shape:
            raise TypeError(f"tensor '{self.id}' is a scalar: it has no length")
        return self.shape[0]

    # ---- methods ----
    def reshape(self, shape):
        from popxl import ops
        return ops.reshape(self, shape)

    def transpose(self, permutation=None):
        from popxl import ops
        return ops.transpose(self, permutation)

    def detach(self):
        from popxl import ops
        return ops.detach(self)

    def flatten(self):
        """The tensor as 1-D (ops.flatten)."""
        from popxl import ops
        return ops.flatten(self)

    def reshape_(self, shape):
        """ops.reshape_: a reshaped view aliasing this tensor."""
        from popxl import ops
        return ops.reshape_(self, shape)

    def flatten_(self):
        """ops.flatten_: a 1-D view aliasing this tensor."""
        from popxl import ops
        return ops.flatten_(self)

    def detach_(self):
        """ops.detach_: this tensor without gradient, aliasing it."""
        from popxl import ops
        return ops.detach_(self)

    def copy_to_ipu(self, destination: int, source: Optional[int] = None):
        """ops.ipu_copy of this tensor to IPU `destination`."""
        from popxl import ops
        return ops.ipu_copy(self, destination, source)

    def diag(self):
        """The main diagonal of a 2-D tensor (length min of its dimensions)."""
        from popxl import ops
        if self.rank != 2:
            raise ValueError(f"diag: tensor '{self.id}' has shape {self.shape}, expected a 2-D tensor")
        n, m = self.shape
        k = min(n, m)
        if k == 0:
            return ops.slice(ops.flatten(self), 0, 0, 1, 0)
        return ops.slice(ops.flatten(self), 0, (k - 1) * (m + 1) + 1, m + 1, 0)

    def strides(self, shape=None):
        """Byte strides of a row-major tensor of `shape` (this tensor's by default)."""
        shape = self.shape if shape is None else tuple(shape)
        out, s = [], self.dtype.itemsize
        for d in reversed(shape):
            out.append(s)
            s *= d
        return list(reversed(out))

    def __getitem__(self, key):
        """Indexing: ints and slices (ops.slice, int axes removed), an int tensor or list (ops.gather along
        axis 0), or a bool tensor (ops.where(key, self, 0): unselected elements are 0)."""
        from popxl import ops
        from popxl.dtypes import bool as _bool
        if isinstance(key, (list, np.ndarray)):
            arr = np.asarray(key)
            key = constant(arr if arr.dtype == np.bool_ else arr.astype(np.int32), name="index")
        if isinstance(key, Tensor):
            if key.dtype == _bool:
                return ops.where(key, self, constant(np.zeros((), self.dtype.as_numpy())))
            if not key.dtype.is_int:
                raise TypeError(f"tensor '{self.id}' indexed by '{key.id}' of type {key.dtype.name} (expected an "
                                "int or bool tensor)")
            return ops.gather(self, key)
        return _basic_index(self, key if isinstance(key, tuple) else (key,))

    # ---- operators ----
    def _bin(self, other, op, reverse=False):
        from popxl import ops
        a, b = (other, self) if reverse else (self, other)
        return getattr(ops, op)(a, b)

    def __add__(self, o): return self._bin(o, "add")
    def __radd__(self, o): return self._bin(o, "add", True)
    def __sub__(self, o): return self._bin(o, "sub")
    def __rsub__(self, o): return self._bin(o, "sub", True)
    def __mul__(self, o): return self._bin(o, "mul")
    def __rmul__(self, o): return self._bin(o, "mul", True)
    def __truediv__(self, o): return self._bin(o, "div")
    def __rtruediv__(self, o): return self._bin(o, "div", True)
    def __matmul__(self, o): return self._bin(o, "matmul")
    def __rmatmul__(self, o): return self._bin(o, "matmul", True)
    def __pow__(self, o): return self._bin(o, "pow")
    def __gt__(self, o): return self._bin(o, "greater")
    def __lt__(self, o): return self._bin(o, "less")

    def __mod__(self, o): return self._bin(o, "fmod")
    def __rmod__(self, o): return self._bin(o, "fmod", True)
    def __and__(self, o): return self._bin(o, "logical_and")
    def __rand__(self, o): return self._bin(o, "logical_and", True)
    def __or__(self, o): return self._bin(o, "logical_or")
    def __ror__(self, o): return self._bin(o, "logical_or", True)

    def __invert__(self):
        from popxl import ops
        return ops.logical_not(self)

    def __neg__(self):
        from popxl import ops
        return ops.negate(self)

    def __iadd__(self, o):
        """Adds `o` to this tensor in place; the name keeps referring to this tensor (as in PopXL)."""
        from popxl import ops
        ops.add_(self, o)
        return self


def _basic_index(t: Tensor, key: tuple) -> Tensor:
    """t[key] for a tuple of ints, slices and at most one Ellipsis."""
    from popxl import ops
    n_ell = sum(k is Ellipsis for k in key)
    if n_ell > 1:
        raise IndexError(f"tensor '{t.id}': an index can only have one ellipsis")
    n_axes = len(key) - n_ell
    if n_axes > t.rank:
        raise IndexError(f"tensor '{t.id}' of rank {t.rank} indexed with {n_axes} axes")
    if n_ell:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (t.rank - n_axes) + key[i + 1:]
    starts, stops, steps, axes, drop = [], [], [], [], []
    for ax, k in enumerate(key):
        if isinstance(k, (int, np.integer)):
            d = t.shape[ax]
            if not -d <= k < d:
                raise IndexError(f"index {k} is out of range for axis {ax} of tensor '{t.id}' {t.shape}")
            k = int(k) + d if k < 0 else int(k)
            starts.append(k), stops.append(k + 1), steps.append(1), axes.append(ax), drop.append(ax)
        elif isinstance(k, slice):
            if k == slice(None):
                continue
            starts.append(k.start), stops.append(k.stop), steps.append(1 if k.step is None else k.step)
            axes.append(ax)
        else:
            raise TypeError(f"tensor '{t.id}': unsupported index {k!r} (ints, slices, ..., int/bool tensors)")
    out = t
    if axes:
        big = np.iinfo(np.int64).max
        st = [s if s is not None else (0 if p > 0 else big) for s, p in zip(starts, steps)]
        en = [e if e is not None else (big if p > 0 else -big) for e, p in zip(stops, steps)]
        out = ops.slice(t, st, en, steps, axes)
    if drop:
        out = ops.squeeze(out, drop)
    return out


class Variable(Tensor):
    """A tensor whose value persists between runs (a main-graph variable)."""

    @property
    def replica_grouping(self):
        """How replicas share this variable's value (one value per group)."""
        rg = self._graph._variable_settings.get(self._id, {}).get("replica_grouping")
        return rg if rg is not None else self.ir.replica_grouping(group_size=self.ir.replication_factor)

    @property
    def retrieval_mode(self) -> str:
        """"one_per_group" or "all_replicas": what the host reads back."""
        return self._graph._variable_settings.get(self._id, {}).get("retrieval_mode") or "one_per_group"

    @property
    def shape_on_replica(self):
        """The shape each replica holds."""
        return self.shape

    @property
    def shape_on_host(self):
        """The shape of the host data: a leading group dimension when there is more than one group."""
        groups = self.replica_grouping.num_groups
        return ((groups,) if groups > 1 else ()) + self.shape


class Constant(Tensor):
    """A tensor with a value fixed when the graph is built."""


def _to_array(data, dtype) -> np.ndarray:
    if dtype is not None:
        dtype = _dtype.as_dtype(dtype)
        return np.asarray(np.asarray(data, dtype=dtype.as_numpy()), order="C")
    arr = np.asarray(data)
    if arr.dtype == np.float64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.float32)  # Python floats default to float32, as in PopXL
    if arr.dtype == np.int64 and not isinstance(data, np.ndarray):
        arr = arr.astype(np.int32)
    return np.asarray(arr, order="C")


def _info(dt, shape):
    return popart_core._ir.TensorInfo(_dtype.as_dtype(dt)._pb_dtype, list(shape))


def _init(data, dtype, name, kind, cls):
    g = context.get_current_graph()
    g._check_mutable("creating a tensor")
    arr = _to_array(data, dtype)
    dt = _dtype.as_dtype(dtype) if dtype is not None else _dtype.as_dtype(arr.dtype)
    tid = g._new_id(name or kind)
    if kind == "v" and not g._pb_graph.isMainGraph():
        raise ValueError(f"variable '{tid}' is created inside sub-graph '{g.name}': variables live in the main "
                         "graph; pass it to the sub-graph as an input")
    add = g._pb_graph.addVarInit if kind == "v" else g._pb_graph.addConstInit
    add(tid, _info(dt, arr.shape), arr)
    return cls(g._pb_graph.getTensor(tid), g)


def constant(data, dtype=None, name: Optional[str] = None, downcast: bool = True) -> Constant:
    """A constant tensor with value `data` in the current graph."""
    return _init(data, dtype, name, "c", Constant)


def variable(data, dtype=None, name: Optional[str] = None, downcast: bool = True, replica_grouping=None,
             retrieval_mode=None, *, grouping=None) -> Variable:
    """A variable tensor initialised with `data` in the main graph.

    `replica_grouping` (also accepted as `grouping`) gives one value per group of replicas: with more than
    one group, `data` holds the groups' values along a new first axis (shape (num_groups, *shape)) and
    each replica starts from its group's value. `retrieval_mode` is what the host reads back:
    "one_per_group" (default: the value of each group's first replica, shaped like `data`) or
    "all_replicas" (every replica's value, shape (replication_factor, *shape))."""
    if grouping is not None:
        if replica_grouping is not None and replica_grouping != grouping:
            raise ValueError(f"variable '{name}': both replica_grouping and grouping are given, and differ")
        replica_grouping = grouping
    if retrieval_mode not in (None, "one_per_group", "all_replicas"):
        raise ValueError(f"variable '{name}': retrieval_mode {retrieval_mode!r} is not 'one_per_group' or "
                         "'all_replicas'")
    groups = _check_grouping(replica_grouping, name)
    arr = _to_array(data, dtype)
    if groups > 1:
        if arr.ndim == 0 or arr.shape[0] != groups:
            raise ValueError(f"variable '{name}': its {replica_grouping} has {groups} groups, so the data needs "
                             f"one value per group along its first axis (shape ({groups}, ...)); got shape "
                             f"{arr.shape}")
        v = _init(arr[0], dtype if dtype is not None else arr.dtype, name, "v", Variable)
        group_data = np.array(arr, dtype=v.dtype.as_numpy(), order="C")
    else:
        v = _init(arr, dtype, name, "v", Variable)
        group_data = None
    if replica_grouping is not None or retrieval_mode is not None:
        v._graph._variable_settings[v.id] = {"replica_grouping": replica_grouping, "retrieval_mode": retrieval_mode,
                                             "group_data": group_data}
    return v


def _check_grouping(grouping, name) -> int:
    """The number of groups of a variable's replica grouping (1 when None); errors name the variable."""
    if grouping is None:
        return 1
    from popxl.replica_grouping import ReplicaGrouping
    if not isinstance(grouping, ReplicaGrouping):
        raise TypeError(f"variable '{name}': replica_grouping must be a popxl.ReplicaGrouping (from "
                        f"ir.replica_grouping), got {type(grouping).__name__}")
    n = context.get_current_graph().ir.replication_factor
    if len(grouping.assignment) != n:
        raise ValueError(f"variable '{name}': {grouping} is for {len(grouping.assignment)} replicas, but the Ir's "
                         f"replication_factor is {n}")
    return grouping.num_groups


def graph_input(shape, dtype, name: Optional[str] = None, by_ref: bool = False, meta_shape=None) -> Tensor:
    """A new input of the current (sub-)graph."""
    g = context.get_current_graph()
    tid = g._new_id(name or "input")
    g._pb_graph.addInput(tid, _info(dtype, shape))
    t = Tensor(g._pb_graph.getTensor(tid), g)
    if by_ref:
        g._by_ref_inputs.add(tid)
    return t


def graph_output(t: Tensor) -> None:
    """Marks `t` as the next output of the current graph."""
    g = context.get_current_graph()
    g._check_in_graph(t, "graph_output")
    g._pb_graph.markAsOutput(t.id)
