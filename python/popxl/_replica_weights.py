"""Host values of the variables whose replicas differ: variables with more than one replica group, with
retrieval mode "all_replicas", and (in a program of several instances) every variable, since the
replicas of a group may live in other instances.

The host keeps one value per group (shape (num_groups, *shape)). `to_device` gives each local replica
its group's value; `from_device` reads every local replica, gathers the other instances' replicas over
MPI, and takes each group's value from its first replica (guide 13.4 and 14)."""
from typing import Dict, List

import numpy as np

import popart_core
from popxl.remote import sends  # remote and sharded variables: popxl.remote sends them


class ReplicaWeights:
    """The per-group host values of a Session's replica-dependent variables."""

    def __init__(self, ir, pb_session):
        self._pb = pb_session
        self._replicas = ir.replication_factor
        self._local = list(ir._local_replicas)
        self._instances = ir._instances.count
        self._distributed = self._instances > 1
        self._vars = [v for v in ir.main_graph.variables if self._differs(v) and not sends(ir, v.id)]
        self._groups: Dict[str, np.ndarray] = {}     # id -> (num_groups, *shape)
        self._all: Dict[str, np.ndarray] = {}        # id -> (replicas, *shape), for "all_replicas"
        for v in self._vars:
            settings = v._graph._variable_settings.get(v.id, {})
            data = settings.get("group_data")
            if data is None:
                data = self._tensor_data(v)[None]
            self._set_groups(v, np.array(data, order="C"))

    def _differs(self, v) -> bool:
        return self._distributed or v.replica_grouping.num_groups > 1 or v.retrieval_mode == "all_replicas"

    @staticmethod
    def _tensor_data(v) -> np.ndarray:
        return np.frombuffer(v._pb_tensor.dataBytes(), dtype=v.dtype.as_numpy()).reshape(v.shape).copy()

    def _set_groups(self, v, groups: np.ndarray) -> None:
        self._groups[v.id] = groups
        v._pb_tensor.setTensorData(np.ascontiguousarray(groups[0]))
        if v.retrieval_mode == "all_replicas":
            self._all[v.id] = groups[np.asarray(v.replica_grouping.assignment)]

    def __contains__(self, v) -> bool:
        return v.id in self._groups

    def value(self, v) -> np.ndarray:
        """What the host reads for `v`: one value per group, or per replica ("all_replicas"); without a
        leading axis when there is only one."""
        if v.retrieval_mode == "all_replicas":
            data = self._all[v.id]
        else:
            data = self._groups[v.id]
        return (data if len(data) > 1 else data[0]).copy()

    def write(self, v, data: np.ndarray, per_replica: bool = False) -> None:
        """Sets the host value of `v` from data shaped v.shape_on_host, or (`per_replica`, retrieval mode
        "all_replicas") from one value per replica, shaped (replication_factor, *shape)."""
        if not per_replica:
            groups = data if v.replica_grouping.num_groups > 1 else data[None]
            self._set_groups(v, np.array(groups, order="C"))
            return
        assignment = np.asarray(v.replica_grouping.assignment)
        first = [int(np.flatnonzero(assignment == g)[0]) for g in range(v.replica_grouping.num_groups)]
        self._groups[v.id] = np.array(data[first], order="C")
        self._all[v.id] = np.array(data, order="C")
        v._pb_tensor.setTensorData(np.ascontiguousarray(data[0]))

    def to_device(self) -> None:
        """Each local replica := its group's host value (its own, for "all_replicas")."""
        for v in self._vars:
            assignment = v.replica_grouping.assignment
            groups = self._groups[v.id]
            for local, replica in enumerate(self._local):
                value = self._all[v.id][replica] if v.id in self._all else groups[assignment[replica]]
                popart_core._setReplicaVariableData(self._pb, v.id, local, value)

    def from_device(self) -> None:
        """The host values := the device values of every group's first replica (of every replica for
        "all_replicas"), gathered from all instances."""
        if not self._vars:
            return
        mine = {v.id: [self._read(v, local) for local in range(len(self._local))] for v in self._vars}
        every = self._gather(mine)
        for v in self._vars:
            replicas = np.stack(every[v.id])
            assignment = np.asarray(v.replica_grouping.assignment)
            first = [int(np.flatnonzero(assignment == g)[0]) for g in range(v.replica_grouping.num_groups)]
            self._groups[v.id] = replicas[first]
            v._pb_tensor.setTensorData(np.ascontiguousarray(replicas[0]))
            if v.retrieval_mode == "all_replicas":
                self._all[v.id] = replicas

    def _read(self, v, local: int) -> np.ndarray:
        raw = popart_core._replicaVariableData(self._pb, v.id, local)
        return np.frombuffer(raw, dtype=v.dtype.as_numpy()).reshape(v.shape)

    def _gather(self, mine: Dict[str, List[np.ndarray]]) -> Dict[str, List[np.ndarray]]:
        """Every replica's values by global replica index (instance i runs a consecutive block)."""
        return gather_replicas(self._instances, mine)


def gather_replicas(instances: int, mine: Dict[str, List[np.ndarray]]) -> Dict[str, List[np.ndarray]]:
    """Every replica's values by global replica index, from each instance's `mine` (its local replicas'
    values of the same variables, by variable id; instance i runs a consecutive block of replicas). Every
    instance sends the same number of bytes."""
    if instances == 1:
        return mine
    from popart import distributed
    send = np.concatenate([a.reshape(-1).view(np.uint8) for vid in mine for a in mine[vid]])
    recv = np.empty(send.size * instances, np.uint8)
    distributed.all_gather(send, recv, "weights_to_host (every instance must read the variables: "
                                       "get_tensor_data, weights_to_host, leaving the session)")
    every = {vid: [] for vid in mine}
    for part in np.split(recv, instances):
        offset = 0
        for vid, arrays in mine.items():
            for a in arrays:
                every[vid].append(np.frombuffer(part[offset:offset + a.nbytes].tobytes(), a.dtype).reshape(a.shape))
                offset += a.nbytes
    return every
