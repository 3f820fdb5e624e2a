"""Run under mpiexec by test_mpi.py: one process of a distributed training
session (replicas x processes), or a faulty one. Rank 0 writes the result to
the .npz path given. Usage: _mpi_worker.py MODE OUT [args]"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from replication._replica_models import make_data, session, train  # noqa: E402

import popart  # noqa: E402
from popart import distributed  # noqa: E402

BATCH, STEPS = 4, 3


def train_mode(out, local, micro, opt):
    rank, nproc = distributed.rank(), distributed.size()
    data = make_data(STEPS, micro, nproc * local, BATCH)  # the global batch, every rank takes its replicas
    mine = [{k: v[:, rank * local:(rank + 1) * local] for k, v in d.items()} for d in data]
    s = session(BATCH, micro, local, opt, global_replicas=nproc * local, offset=rank * local)
    w = train(s, mine, micro, local)
    if rank == 0:
        np.savez(out, **w)
        print("transport:", distributed.transport(), flush=True)


def shared_mode(out, local, micro, opt, seeds):
    """Weights large enough to be shared (in memory all processes map, when they
    share a host); seeds "differ": rank 1 starts from other weights. Every rank
    writes its weights, the report's shared line and persistent memory."""
    import re
    from replication._replica_models import large_weights, shared_line
    rank, nproc = distributed.rank(), distributed.size()
    data = make_data(STEPS, micro, nproc * local, BATCH)
    mine = [{k: v[:, rank * local:(rank + 1) * local] for k, v in d.items()} for d in data]
    start = large_weights(seed=rank if seeds == "differ" else 0)
    s = session(BATCH, micro, local, opt, weights=start, global_replicas=nproc * local, offset=rank * local)
    report = s.getSummaryReport()
    w = train(s, mine, micro, local, like=start)
    line = shared_line(s, in_place=True, products=True)
    persistent = float(re.search(r"persistent \(weights, inputs, constants\) ([\d.]+) MB", report).group(1))
    np.savez(out + f".{rank}", **w, shared=np.array(line or (0, 0.0, 0, 0)), persistent=persistent,
             across=np.array("the processes of this host share" in report))


def hvd_mode(out, insert):
    """Horovod flow: each rank its own data and initial weights; hostAllReduce
    session, DistributedOptimizer, broadcast_weights from rank 0."""
    import horovod.popart as hvd
    from replication._replica_models import initial_weights, build, optimizer
    hvd.init()
    rank = hvd.rank()
    data = make_data(STEPS, 1, hvd.size(), BATCH)
    mine = [{k: v[:, rank:rank + 1] for k, v in d.items()} for d in data]
    proto, loss = build(BATCH, initial_weights(seed=rank))
    opts = popart.SessionOptions()
    opts.hostAllReduce = True
    opt = optimizer("sgd")
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, {loss: popart.AnchorReturnType("All")}),
                               loss=loss, optimizer=opt, userOptions=opts,
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    if insert:
        hvd.DistributedOptimizer(opt, s, opts).insert_host_allreduce()
    hvd.broadcast_weights(s, root_rank=0)
    s.weightsFromHost()
    w = train(s, mine, 1, 1)
    np.savez(out + f".{rank}", **w)


def grouped_mode(out, name, accum):
    """2 processes x 2 replicas with W one value per group of GROUPINGS[name]."""
    from replication._grouped_models import GROUPINGS, MODE, grouped_problem, train_popart
    make, groups = GROUPINGS[name]
    rank = distributed.rank()
    w0, b0, data = grouped_problem(len(groups), accum)
    _, w, b = train_popart(make(MODE.OnePerGroup), w0, b0, data, accum, local=2, offset=2 * rank)
    np.savez(out + f".{rank}", W=w, b=b)


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "train":
        train_mode(out, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif mode == "raise":  # rank 1 raises before its first collective
        if distributed.rank() == 1:
            raise RuntimeError("rank 1 fails on purpose")
        train_mode(out, 1, 1, "sgd")
    elif mode == "die":  # rank 1 is killed
        if distributed.rank() == 1:
            os.kill(os.getpid(), 9)
        train_mode(out, 1, 1, "sgd")
    elif mode == "mismatch":  # rank 1 builds a different model
        rank = distributed.rank()
        try:
            session(BATCH + rank, 1, 1, "sgd", global_replicas=2, offset=rank)
        except popart.popart_exception as e:
            print(f"rank {rank} caught: {e}", flush=True)
            sys.exit(3)
    elif mode == "shared":
        shared_mode(out, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif mode == "grouped":
        grouped_mode(out, sys.argv[3], int(sys.argv[4]))
    elif mode in ("hvd", "hvd-no-allreduce"):
        hvd_mode(out, insert=mode == "hvd")
    elif mode == "broadcast":
        rank = distributed.rank()
        from replication._replica_models import initial_weights
        s = session(BATCH, 1, 1, "sgd", weights=initial_weights(seed=rank), global_replicas=2, offset=rank)
        s.broadcastWeights(0)
        w = train(s, [], 1, 1)
        np.savez(out + f".{rank}", **w)


if __name__ == "__main__":
    main()
