"""Small IR value types of popart._internal.ir kept in Python: GraphId, Scope and ReplicaGrouping."""
from typing import List


class GraphId:
    """The id of a graph of an Ir (a name)."""

    def __init__(self, id: str = ""):
        if not isinstance(id, str):
            raise TypeError(f"GraphId: expected a str, got {type(id).__name__}")
        self._id = id

    def str(self) -> str:
        """The id as text."""
        return self._id

    def __eq__(self, other):
        return isinstance(other, GraphId) and other._id == self._id

    def __hash__(self):
        return hash(self._id)

    def __repr__(self):
        return f"GraphId({self._id!r})"


class Scope:
    """A name scope: names joined by '/' (`Scope() / "layer" / "matmul"`)."""

    _delimiter = "/"

    def __init__(self, names: List[str] = None):
        self._names = list(names or [])
        for n in self._names:
            if not n or self._delimiter in n:
                raise ValueError(f"Scope: name {n!r} must be non-empty and contain no '{self._delimiter}'")

    def __truediv__(self, name: str) -> "Scope":
        return Scope(self._names + [name])

    def empty(self) -> bool:
        """True for the top-level scope."""
        return not self._names

    def str(self) -> str:
        """The scope as 'a/b/c'."""
        return self._delimiter.join(self._names)

    def getCommonParent(self, other: "Scope") -> "Scope":
        """The longest scope both are inside."""
        common = []
        for a, b in zip(self._names, other._names):
            if a != b:
                break
            common.append(a)
        return Scope(common)

    @staticmethod
    def delimiter() -> str:
        return Scope._delimiter

    def __eq__(self, other):
        return isinstance(other, Scope) and other._names == self._names

    def __hash__(self):
        return hash(tuple(self._names))

    def __repr__(self):
        return f"Scope({self.str()!r})"


class ReplicaGrouping:
    """numReplicas replicas in groups of groupSize replicas, stride apart."""

    def __init__(self, numReplicas: int, stride: int = 1, groupSize: int = None):
        groupSize = numReplicas // stride if groupSize is None else groupSize
        for name, v in (("numReplicas", numReplicas), ("stride", stride), ("groupSize", groupSize)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"ReplicaGrouping: {name} {v!r} must be a positive int")
        if numReplicas % (stride * groupSize):
            raise ValueError(f"ReplicaGrouping: stride {stride} x groupSize {groupSize} does not divide "
                             f"{numReplicas} replicas")
        self._n, self._stride, self._size = numReplicas, stride, groupSize

    def getNumReplicas(self) -> int:
        return self._n

    def getStride(self) -> int:
        return self._stride

    def getGroupSize(self) -> int:
        return self._size

    def getNumGroups(self) -> int:
        return self._n // self._size

    def getGroupAt(self, replica: int) -> int:
        """The group of `replica`."""
        self._check(replica, self._n, "replica")
        block = self._stride * self._size
        return (replica // block) * self._stride + replica % self._stride

    def getIndexInGroupAt(self, replica: int) -> int:
        """The position of `replica` within its group."""
        self._check(replica, self._n, "replica")
        return (replica % (self._stride * self._size)) // self._stride

    def getReplicaAt(self, group: int, index: int = 0) -> int:
        """Replica `index` of group `group`."""
        self._check(group, self.getNumGroups(), "group")
        self._check(index, self._size, "index")
        block = self._stride * self._size
        return (group // self._stride) * block + group % self._stride + index * self._stride

    def getReplicasAt(self, group: int) -> List[int]:
        return [self.getReplicaAt(group, i) for i in range(self._size)]

    def getTranspose(self) -> "ReplicaGrouping":
        """The grouping whose groups take one replica from each group of this one (constant stride only)."""
        groups = self.getNumGroups()
        if self._stride == 1:
            return ReplicaGrouping(self._n, self._size, groups)
        if self._stride * self._size == self._n:
            return ReplicaGrouping(self._n, 1, groups)
        raise ValueError(f"{self!r} has no transpose with a constant stride")

    @staticmethod
    def _check(v, n, what):
        if not 0 <= v < n:
            raise IndexError(f"ReplicaGrouping: {what} {v} is out of range [0, {n})")

    def str(self) -> str:
        return f"ReplicaGrouping(numReplicas={self._n}, stride={self._stride}, groupSize={self._size})"

    __repr__ = str

    def __eq__(self, other):
        return isinstance(other, ReplicaGrouping) and (other._n, other._stride, other._size) == (
            self._n, self._stride, self._size)

    def __hash__(self):
        return hash((self._n, self._stride, self._size))
