"""Distributed sessions (global replication, user guide 6.2.2) over MPI.

A session with ``enableDistributedReplicatedGraphs`` runs
``replicatedGraphCount`` replicas in this process, replicas
``globalReplicaOffset ..`` of ``globalReplicationFactor``; its collectives
(the replicated gradient reduction, the collective ops, broadcastWeights)
reach the replicas of the other processes through MPI (mpi4py). Launch
with ``mpiexec -n N python train.py``; install with
``pip install popart-cpu[distributed]``.

Transport: when every process runs on one host, the collectives go through
POSIX shared memory (each process reads the others' contributions in place);
across hosts, or with ``POPART_DISTRIBUTED_TRANSPORT=mpi``, through MPI
(mpi4py). ``transport()`` tells which one a process uses.

Faults: a collective waits at most ``POPART_DISTRIBUTED_TIMEOUT`` seconds
(default 30) for the other processes, then raises; an uncaught exception in
a process aborts the MPI job (MPI_Abort), so the other processes end too
instead of waiting for it; with shared memory, a process that exits makes the
others' collectives fail at once, naming its rank.
"""
import atexit
import os
import sys
import time

import popart_core

__all__ = ["mpi", "setup", "all_gather", "rank", "size", "local_rank", "local_size", "transport"]

INSTALL_HINT = "pip install popart-cpu[distributed]"


def mpi():
    """The mpi4py ``MPI`` module; a popart_exception naming what to install without it."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise popart_core.popart_exception(
            "distributed training needs MPI through mpi4py, which is not installed: "
            f"{INSTALL_HINT} (installs mpi4py and Open MPI), then launch with mpiexec -n N python script.py") from e
    return MPI


def rank() -> int:
    """This process's rank in MPI_COMM_WORLD."""
    return mpi().COMM_WORLD.Get_rank()


def size() -> int:
    """The number of processes in MPI_COMM_WORLD."""
    return mpi().COMM_WORLD.Get_size()


def _local_comm():
    MPI = mpi()
    return MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)


def local_rank() -> int:
    """This process's rank among the processes on its host."""
    return _local_comm().Get_rank()


def local_size() -> int:
    """The number of processes on this host."""
    return _local_comm().Get_size()


def _timeout() -> float:
    try:
        return float(os.environ.get("POPART_DISTRIBUTED_TIMEOUT", "30"))
    except ValueError:
        raise popart_core.popart_exception("POPART_DISTRIBUTED_TIMEOUT must be a number of seconds") from None


def _abort_on_uncaught_exception(comm):
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.write(f"popart: rank {comm.Get_rank()} raised {kind.__name__}; aborting the MPI job so that "
                         "the other ranks do not wait for it\n")
        sys.stderr.flush()
        comm.Abort(1)

    sys.excepthook = hook


def _all_gather(comm, MPI, limit: float, send, recv, what: str) -> None:
    request = comm.Iallgather([send, MPI.BYTE], [recv, MPI.BYTE])
    # MPI progresses the transfer inside Test(): poll without sleeping for the
    # first ~2 ms (the other processes usually arrive within them), then back off.
    spin_until = time.monotonic() + 0.002
    while time.monotonic() < spin_until:
        if request.Test():
            return
    deadline = time.monotonic() + limit
    pause = 0.0
    while not request.Test():
        if time.monotonic() > deadline:
            raise popart_core.popart_runtime_error(
                f"rank {comm.Get_rank()}: the other processes did not join {what} within {limit:g} s "
                "(POPART_DISTRIBUTED_TIMEOUT); one of them failed, hung or runs a different program")
        time.sleep(pause)
        pause = min(0.001, pause + 0.00002)


def all_gather(send, recv, what: str = "a collective") -> None:
    """recv := every process's `send` bytes in rank order: through the process group of the distributed sessions
    once one is set up (``setup()``), else over MPI_COMM_WORLD. Raises a popart runtime error naming `what` when
    the other processes do not join within ``POPART_DISTRIBUTED_TIMEOUT`` seconds."""
    if popart_core._hasProcessGroup():
        popart_core._processGroupAllGather(send, recv, what)
        return
    MPI = mpi()
    _all_gather(MPI.COMM_WORLD, MPI, _timeout(), send, recv, what)


def _transport_wanted() -> str:
    wanted = os.environ.get("POPART_DISTRIBUTED_TRANSPORT", "auto").strip().lower()
    if wanted not in ("auto", "mpi", "shm"):
        raise popart_core.popart_exception(
            f"POPART_DISTRIBUTED_TRANSPORT={wanted!r}: expected 'auto' (shared memory when every process runs on "
            "this host, else MPI), 'mpi' or 'shm'")
    return wanted


def _one_host_and_segment_name(comm, MPI, limit: float):
    """(whether every process runs on this host, rank 0's name for a shared memory segment), from one timed
    all-gather (a blocking MPI collective would wait for ever on a process that failed before joining)."""
    import secrets
    import socket
    width = 128
    mine = f"{socket.gethostname()}\0/popart-{os.getpid()}-{secrets.token_hex(6)}".encode()[:width].ljust(width, b"\0")
    recv = bytearray(width * comm.Get_size())
    _all_gather(comm, MPI, limit, mine, recv, "setting up the distributed session")
    hosts = [bytes(recv[i * width:(i + 1) * width]).split(b"\0")[0] for i in range(comm.Get_size())]
    name = bytes(recv[:width]).split(b"\0")[1].decode()
    return len(set(hosts)) == 1, name


def setup():
    """Registers MPI_COMM_WORLD's processes as the process group of distributed sessions (once): through shared
    memory when all of them run on this host, else through MPI (see ``POPART_DISTRIBUTED_TRANSPORT``)."""
    if popart_core._hasProcessGroup():
        return
    MPI = mpi()
    comm = MPI.COMM_WORLD
    limit = _timeout()
    wanted = _transport_wanted()
    _abort_on_uncaught_exception(comm)
    one_host, name = _one_host_and_segment_name(comm, MPI, limit)
    if wanted == "shm" and not one_host:
        raise popart_core.popart_exception(
            "POPART_DISTRIBUTED_TRANSPORT=shm: the processes do not all run on one host; use 'mpi' or 'auto'")
    if wanted != "mpi" and one_host:
        popart_core._setShmProcessGroup(comm.Get_rank(), comm.Get_size(), name, limit)
    else:
        def gather(send, recv):
            _all_gather(comm, MPI, limit, send, recv, "a collective")

        popart_core._setProcessGroup(comm.Get_rank(), comm.Get_size(), gather)
    atexit.register(popart_core._clearProcessGroup)


def transport() -> str:
    """What carries the collectives of this process's distributed sessions: "shared memory", "MPI", or "" before
    ``setup()`` (the first distributed session calls it)."""
    return popart_core._processGroupTransport()
