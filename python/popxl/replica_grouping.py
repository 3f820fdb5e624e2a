"""popxl.ReplicaGrouping: a partition of an Ir's replicas into groups, by stride and group size (or by an
explicit assignment of each replica to a group)."""
from typing import List, Optional

from popart._internal.ir import ReplicaGrouping as _IrGrouping


class ReplicaGrouping:
    """Replicas split into groups. Made with ``Ir.replica_grouping`` or
    ``Ir.replica_grouping_from_assignments``; used for variables (one value per group) and collectives."""

    def __init__(self, num_replicas: int, assignment: List[int], stride: Optional[int], group_size: int):
        self._num_replicas = num_replicas
        self._assignment = list(assignment)
        self._stride = stride
        self._group_size = group_size

    @classmethod
    def _from_stride(cls, num_replicas: int, stride: int = 1, group_size: Optional[int] = None):
        if not isinstance(stride, int) or stride < 1:
            raise ValueError(f"replica_grouping: stride {stride!r} must be a positive int")
        if group_size is None:
            if num_replicas % stride:
                raise ValueError(f"replica_grouping: stride {stride} does not divide the replication factor "
                                 f"{num_replicas}")
            group_size = num_replicas // stride
        if not isinstance(group_size, int) or group_size < 1:
            raise ValueError(f"replica_grouping: group_size {group_size!r} must be a positive int")
        if num_replicas % (stride * group_size):
            raise ValueError(f"replica_grouping: stride {stride} x group_size {group_size} does not divide the "
                             f"replication factor {num_replicas}")
        ir_grouping = _IrGrouping(num_replicas, stride, group_size)
        assignment = [ir_grouping.getGroupAt(r) for r in range(num_replicas)]
        return cls(num_replicas, assignment, stride, group_size)

    @classmethod
    def _from_assignments(cls, assignment: List[int]):
        assignment = [int(a) for a in assignment]
        if not assignment:
            raise ValueError("replica_grouping_from_assignments: the assignment is empty")
        groups = sorted(set(assignment))
        if groups != list(range(len(groups))):
            raise ValueError(f"replica_grouping_from_assignments: groups must be numbered 0..n-1 in use, got "
                             f"{groups}")
        sizes = {g: assignment.count(g) for g in groups}
        if len(set(sizes.values())) != 1:
            raise ValueError(f"replica_grouping_from_assignments: groups have different sizes {sizes}")
        members = [[r for r, a in enumerate(assignment) if a == g] for g in groups]
        strides = {b - a for m in members for a, b in zip(m, m[1:])}
        stride = strides.pop() if len(strides) == 1 else (1 if not strides else None)
        return cls(len(assignment), assignment, stride, sizes[0])

    @property
    def stride(self) -> int:
        """Offset between consecutive replicas of a group (raises when the groups have no constant stride)."""
        if self._stride is None:
            raise ValueError(f"replica grouping {self._assignment} has no constant stride")
        return self._stride

    @property
    def group_size(self) -> int:
        """Number of replicas in each group."""
        return self._group_size

    @property
    def num_groups(self) -> int:
        """Number of groups."""
        return len(set(self._assignment))

    @property
    def assignment(self) -> List[int]:
        """The group of each replica, by replica index."""
        return list(self._assignment)

    @property
    def is_const(self) -> bool:
        """True when every group has a constant stride (usable with collectives)."""
        return self._stride is not None

    def transpose(self) -> "ReplicaGrouping":
        """The grouping whose groups take one replica from each group of this one."""
        members = [[r for r, a in enumerate(self._assignment) if a == g] for g in range(self.num_groups)]
        assignment = [0] * self._num_replicas
        for m in members:
            for pos, r in enumerate(m):
                assignment[r] = pos
        return ReplicaGrouping._from_assignments(assignment)

    def __eq__(self, other):
        return isinstance(other, ReplicaGrouping) and other._assignment == self._assignment

    def __hash__(self):
        return hash(tuple(self._assignment))

    def __repr__(self):
        if self._stride is None:
            return f"ReplicaGrouping(assignment={self._assignment})"
        return (f"ReplicaGrouping(num_replicas={self._num_replicas}, stride={self._stride}, "
                f"group_size={self._group_size})")
