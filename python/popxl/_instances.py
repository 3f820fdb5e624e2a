"""The instances (processes) of a distributed PopXL program and the replicas each runs.

``popxl.Ir(replication="popdist")`` reads them from the environment the launcher sets, as PopDist does:
the instance count and index from ``POPDIST_NUM_INSTANCES`` / ``POPDIST_INSTANCE_INDEX`` (poprun), else
from MPI's launcher (``OMPI_COMM_WORLD_SIZE`` / ``OMPI_COMM_WORLD_RANK`` from Open MPI's mpiexec,
``PMI_SIZE`` / ``PMI_RANK`` from MPICH's); the global replication factor from
``POPDIST_NUM_TOTAL_REPLICAS``, else ``POPDIST_NUM_LOCAL_REPLICAS`` times the instance count, else one
replica per instance. Instance i runs the consecutive replicas ``i * local .. (i + 1) * local - 1``."""
import os
from dataclasses import dataclass, replace

_COUNT_VARS = ("POPDIST_NUM_INSTANCES", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_INDEX_VARS = ("POPDIST_INSTANCE_INDEX", "OMPI_COMM_WORLD_RANK", "PMI_RANK")


def _env_int(names, default):
    for name in names:
        value = os.environ.get(name)
        if value is None:
            continue
        try:
            return int(value), name
        except ValueError:
            raise ValueError(f"popxl.Ir(replication='popdist'): environment variable {name}={value!r} is not an "
                             "integer") from None
    return default, None


@dataclass(frozen=True)
class Instances:
    """`count` instances; this one is `index` and runs `local_replicas` of the `replicas` replicas."""
    count: int
    index: int
    local_replicas: int
    replicas: int

    @classmethod
    def single(cls) -> "Instances":
        return cls(1, 0, 1, 1)

    @classmethod
    def from_environment(cls) -> "Instances":
        count, count_var = _env_int(_COUNT_VARS, 1)
        index, index_var = _env_int(_INDEX_VARS, 0)
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"popxl.Ir(replication='popdist'): instance index {index} ({index_var}) of {count} "
                             f"instances ({count_var}) is invalid")
        local, local_var = _env_int(("POPDIST_NUM_LOCAL_REPLICAS",), 1)
        total, total_var = _env_int(("POPDIST_NUM_TOTAL_REPLICAS",), local * count)
        if local < 1 or total < 1 or total % count:
            raise ValueError(f"popxl.Ir(replication='popdist'): {total} replicas ({total_var or 'default'}) do not "
                             f"split evenly over {count} instances ({count_var or 'default'})")
        return cls(count, index, total // count, total)

    def with_replicas(self, replicas: int) -> "Instances":
        """The same instances running `replicas` replicas in all."""
        if replicas % self.count:
            raise ValueError(f"Ir.replication_factor = {replicas}: the replicas must split evenly over the "
                             f"{self.count} instances of this program")
        return replace(self, replicas=replicas, local_replicas=replicas // self.count)

    @property
    def replica_offset(self) -> int:
        """The global index of this instance's first replica."""
        return self.index * self.local_replicas
