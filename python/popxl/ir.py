"""popxl.Ir: the IR a PopXL program builds (wraps popart._internal.ir.Ir as `_pb_ir`)."""
import inspect
import itertools
from typing import Union

import popart_core
from popart._internal import ir as _ir
from popxl.graph import Graph


class Ir:
    """An IR: a main graph plus the sub-graphs created from Python functions."""

    _ids = itertools.count()

    def __init__(self, replication: Union[int, str] = 1):
        """`replication`: the number of replicas, or "popdist": the instances launched by mpiexec (or
        poprun) share the replicas, as the environment describes (see popxl._instances)."""
        from popxl._instances import Instances
        self._id = next(Ir._ids)
        self._pb_ir = _ir.Ir()
        self._graphs = {}
        self._graph_ids = itertools.count()
        self.num_host_transfers = 1
        if replication == "popdist":
            self._instances = Instances.from_environment()
            self.replication_factor = self._instances.replicas
        else:
            self._instances = Instances.single()
            self.replication_factor = replication
        self._h2d = {}
        self._d2h = {}

    def _pb_ir_has_tensor(self, tid: str) -> bool:
        return any(g.hasTensor(tid) for g in self._pb_ir.getAllGraphs())

    def _graph(self, pb_graph) -> Graph:
        g = self._graphs.get(pb_graph.id)
        if g is None:
            g = self._graphs[pb_graph.id] = Graph(self, pb_graph)
        return g

    @property
    def main_graph(self) -> Graph:
        return self._graph(self._pb_ir.getMainGraph())

    def get_graph(self, graph_id: str) -> Graph:
        if not self._pb_ir.hasGraph(graph_id):
            raise ValueError(f"the Ir has no graph '{graph_id}'")
        return self._graph(self._pb_ir.getGraph(graph_id))

    def create_empty_graph(self, name: str = "graph") -> Graph:
        gid = name
        while self._pb_ir.hasGraph(gid):
            gid = f"{name}_{next(self._graph_ids)}"
        return self._graph(self._pb_ir.createGraph(gid))

    def create_graph(self, fn, *args, **kwargs) -> Graph:
        """A sub-graph made by calling `fn` (a function or a popxl.Module) with graph inputs in
        place of the Tensor arguments (and TensorSpecs); its return values become the outputs."""
        from popxl.module import Module
        from popxl.tensor import Tensor, graph_input, graph_output
        from popxl.tensor_spec import TensorSpec
        target = fn.build if isinstance(fn, Module) else fn
        name = getattr(target, "__qualname__", "graph").replace(".", "_").replace("<", "").replace(">", "")
        g = self.create_empty_graph(name)
        try:
            bound = inspect.signature(target).bind(*args, **kwargs)
        except (TypeError, ValueError) as e:
            raise TypeError(f"create_graph({name}): the arguments do not fit its signature: {e}") from None
        with g:
            for pname, value in list(bound.arguments.items()):
                bound.arguments[pname] = self._as_input(pname, value, graph_input, Tensor, TensorSpec)
            out = target(*bound.args, **bound.kwargs)
            outs = out if isinstance(out, (tuple, list)) else (() if out is None else (out,))
            for t in outs:
                graph_output(t)
        return g

    @staticmethod
    def _as_input(pname, value, graph_input, Tensor, TensorSpec):
        if isinstance(value, Tensor):
            return graph_input(value.shape, value.dtype, pname)
        if isinstance(value, TensorSpec):
            return graph_input(value.shape, value.dtype, pname)
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, (Tensor, TensorSpec)) for v in value):
            return type(value)(graph_input(v.shape, v.dtype, f"{pname}_{i}") for i, v in enumerate(value))
        return value

    @property
    def replication_factor(self) -> int:
        """Replicas of the program (set before building ops whose shapes depend on it: collectives)."""
        return self._replication

    @replication_factor.setter
    def replication_factor(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"Ir.replication_factor = {value!r}: expected a positive int")
        if getattr(self, "_frozen", False):
            raise ValueError("Ir.replication_factor cannot change once a Session owns the Ir")
        self._instances = self._instances.with_replicas(value)
        self._replication = value
        inst = self._instances
        opts = self._pb_ir.getSessionOptions()
        opts.enableReplicatedGraphs = value > 1
        opts.replicatedGraphCount = inst.local_replicas
        opts.enableDistributedReplicatedGraphs = inst.count > 1
        opts.globalReplicationFactor = value if inst.count > 1 else 1
        opts.globalReplicaOffset = inst.replica_offset

    @property
    def id(self) -> int:
        """A number unique to this Ir in the process."""
        return self._id

    @property
    def instance_replication_factor(self) -> int:
        """Replicas run by this instance (process): all of them unless the Ir was made with
        replication="popdist" under a launcher of several instances."""
        return self._instances.local_replicas

    @property
    def _local_replicas(self) -> range:
        """The global indices of the replicas this instance runs."""
        first = self._instances.replica_offset
        return range(first, first + self._instances.local_replicas)

    def replica_grouping(self, stride: int = 1, group_size=None):
        """Replicas grouped `group_size` at a time, `stride` apart (group_size defaults to
        replication_factor // stride)."""
        from popxl.replica_grouping import ReplicaGrouping
        return ReplicaGrouping._from_stride(self.replication_factor, stride, group_size)

    def replica_grouping_from_assignments(self, assignment):
        """A grouping from the group number of each replica."""
        from popxl.replica_grouping import ReplicaGrouping
        if len(assignment) != self.replication_factor:
            raise ValueError(f"replica_grouping_from_assignments: {len(assignment)} assignments for "
                             f"{self.replication_factor} replicas")
        return ReplicaGrouping._from_assignments(assignment)

    def get_all_d2h_streams(self):
        """The device-to-host streams some host_store op writes."""
        return set(self._stored_streams())

    def get_all_h2d_streams(self):
        """The host-to-device streams some host_load op reads."""
        return set(self._loaded_streams())

    # ---- for popxl.Session ----
    def _host_io_ops(self, op_type: str):
        for g in self._pb_ir.getAllGraphs():
            for op in g.getOps():
                if op.opType() == op_type:
                    yield op

    def _loaded_streams(self):
        """The host-to-device streams some host_load op reads, in creation order."""
        ids = {op.getAttribute("streamTensorId") for op in self._host_io_ops("HostLoad")}
        return [s for tid, s in self._h2d.items() if tid in ids]

    def _stored_streams(self):
        """The device-to-host streams some host_store op writes, in creation order."""
        ids = {op.getAttribute("streamTensorId") for op in self._host_io_ops("HostStore")}
        return [s for tid, s in self._d2h.items() if tid in ids]

    def _freeze(self):
        """Sets the data flow and options a session compiles the Ir with; it must not change afterwards."""
        if getattr(self, "_frozen", False):
            return
        if self.num_host_transfers < 1:
            raise ValueError(f"Ir.num_host_transfers is {self.num_host_transfers}, expected at least 1")
        anchors = {s.tensor_id: popart_core.AnchorReturnType("All") for s in self._stored_streams()}
        self._pb_ir.setDataFlow(popart_core.DataFlow(self.num_host_transfers, anchors))
        opts = self._pb_ir.getSessionOptions()
        opts.enableExplicitMainLoops = True
        self._frozen = True

    def dot_checkpoint(self, check: str, save_dir=None) -> None:
        """Writes a Graphviz DOT file of the IR for check point `check` into `save_dir` (default: the
        session option logDir, else the working directory). Which check points write is chosen by the
        dotChecks option and POPART_DOT_CHECKS (names separated by ':', or ALL); when neither selects
        any, every check point writes."""
        import os
        opts = self._pb_ir.getSessionOptions()
        env = os.environ.get("POPART_DOT_CHECKS", "")
        if not opts.dotChecks and not env:
            opts.dotChecks = {"ALL"}
        if save_dir is not None:
            os.makedirs(save_dir, exist_ok=True)
            opts.logDir = str(save_dir)
        self._pb_ir.dotCheckpoint(check)

    def __repr__(self):
        return f"Ir[{len(self._graphs)} graphs]"
