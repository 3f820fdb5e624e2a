"""Horovod's PopART extension API for popart-cpu.

The processes are MPI ranks (mpi4py; launch with ``horovodrun`` or
``mpiexec``). A session created with ``SessionOptions.hostAllReduce = True``
computes each process's gradients, then averages them over the processes on
the host before the weight update once ``DistributedOptimizer(...)
.insert_host_allreduce()`` attached it; ``broadcast_weights`` makes every
process start from the root's weights.
"""
from popart import distributed as _distributed
import popart_core as _core

__all__ = ["init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size",
           "DistributedOptimizer", "broadcast_weights"]

_initialized = False


def init():
    """Starts the process group (MPI_COMM_WORLD)."""
    global _initialized
    _distributed.setup()
    _initialized = True


def shutdown():
    """Forgets the process group (MPI itself is finalised at exit)."""
    global _initialized
    _core._clearProcessGroup()
    _initialized = False


def is_initialized() -> bool:
    return _initialized


def _check():
    if not _initialized:
        raise _core.popart_exception("horovod.popart: call hvd.init() first")


def rank() -> int:
    """This process's rank."""
    _check()
    return _distributed.rank()


def size() -> int:
    """The number of processes."""
    _check()
    return _distributed.size()


def local_rank() -> int:
    """This process's rank on its host."""
    _check()
    return _distributed.local_rank()


def local_size() -> int:
    """The number of processes on this host."""
    _check()
    return _distributed.local_size()


class DistributedOptimizer:
    """Averages a training session's gradients over the processes.

    ``optimizer`` is the session's PopART optimizer (kept as ``.optimizer``),
    ``session`` a TrainingSession created with ``userOpts.hostAllReduce = True``.
    """

    def __init__(self, optimizer, session, userOpts):
        _check()
        if not getattr(userOpts, "hostAllReduce", False):
            raise _core.popart_exception(
                "hvd.DistributedOptimizer needs SessionOptions.hostAllReduce = True when the session is created")
        self.optimizer = optimizer
        self.session = session
        self.userOpts = userOpts
        self._inserted = False

    def insert_host_allreduce(self):
        """From the next run on, every weight update uses the gradients averaged over the processes."""
        _core._attachHostAllReduce(self.session)
        self._inserted = True


def broadcast_weights(session, root_rank: int = 0):
    """The session's host and device weights := those of process ``root_rank``."""
    _check()
    _core._broadcastWeightsOverProcesses(session, root_rank)
