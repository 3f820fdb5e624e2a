"""Where tensors live: TensorStorage (on chip or in remote memory), ReplicatedTensorSharding, TileSet and
TensorLocation. On the CPU every location is host memory; the settings are kept and checked so programs
written for the IPU run unchanged."""
import popart_core

ExecutionContext = popart_core.ExecutionContext
TileSet = popart_core.TileSet
TensorStorage = popart_core.TensorStorage
ReplicatedTensorSharding = popart_core.ReplicatedTensorSharding


class TensorLocation:
    """Storage and sharding of a tensor: ``TensorLocation(storage=TensorStorage.OnChip,
    replicated_tensor_sharding=ReplicatedTensorSharding.Off)``."""

    def __init__(self, storage=TensorStorage.OnChip, replicated_tensor_sharding=ReplicatedTensorSharding.Off):
        if not isinstance(storage, TensorStorage):
            raise TypeError(f"TensorLocation: storage must be a popxl.TensorStorage, got {storage!r}")
        if not isinstance(replicated_tensor_sharding, ReplicatedTensorSharding):
            raise TypeError("TensorLocation: replicated_tensor_sharding must be a popxl.ReplicatedTensorSharding, "
                            f"got {replicated_tensor_sharding!r}")
        self._storage = storage
        self._rts = replicated_tensor_sharding

    @property
    def storage(self) -> TensorStorage:
        """On chip or in remote (off-chip) memory."""
        return self._storage

    @property
    def replicated_tensor_sharding(self) -> ReplicatedTensorSharding:
        """Whether the tensor is split across replicas."""
        return self._rts

    def __eq__(self, other):
        return isinstance(other, TensorLocation) and (other._storage, other._rts) == (self._storage, self._rts)

    def __hash__(self):
        return hash((int(self._storage), int(self._rts)))

    def __repr__(self):
        return f"TensorLocation(storage={self._storage}, replicated_tensor_sharding={self._rts})"
