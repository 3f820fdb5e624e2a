"""The shared-memory process group (distributed sessions whose processes share
a host): two plain processes, no MPI, exchange through it; failures of the
other process are reported with its rank instead of hanging."""
import os
import secrets
import subprocess
import sys
import time

import pytest

import popart
import popart_core

HERE = os.path.dirname(os.path.abspath(__file__))


def run_pair(mode, timeout=30.0, limit=60):
    """Starts ranks 0 and 1 of `mode`; returns (name, [(returncode, output) per rank], seconds)."""
    name = f"/popart-test-{os.getpid()}-{secrets.token_hex(4)}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, os.path.join(HERE, "_shm_worker.py"), name, str(r), mode, str(timeout)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) for r in (0, 1)]
    outs = [p.communicate(timeout=limit)[0] for p in procs]
    return name, [(p.returncode, o) for p, o in zip(procs, outs)], time.monotonic() - t0


def test_gathers_of_growing_and_shrinking_sizes():
    name, results, _ = run_pair("gather")
    for rc, out in results:
        assert rc == 0 and "ok" in out and "transport shared memory" in out, out
    # The segments were unlinked once both processes had them mapped.
    assert not [f for f in os.listdir("/dev/shm") if f.startswith(name[1:])]


def test_a_process_that_exited_is_named_at_once():
    _, results, seconds = run_pair("exit", timeout=30.0)
    rc, out = results[0]
    assert rc == 3, out
    assert "rank(s) 1 (process" in out and "exited" in out, out
    assert seconds < 15  # found by its process id, not by the 30 s timeout


def test_a_process_that_does_not_come_times_out():
    _, results, _ = run_pair("late", timeout=1.0)
    rc, out = results[0]
    assert rc == 3, out
    assert "did not join a collective within 1 s (POPART_DISTRIBUTED_TIMEOUT)" in out, out
    assert float(out.split("error after ")[1].split(" s")[0]) < 5


def test_different_sizes_are_an_error_on_both_processes():
    _, results, _ = run_pair("mismatch")
    rc, out = results[0]
    assert rc == 3, out
    assert "a collective of 64 bytes met one of 128 bytes on rank 1" in out, out
    rc1, out1 = results[1]
    assert rc1 != 0 and "met one of 64 bytes on rank 0" in out1, out1


@pytest.mark.parametrize("args,message", [
    ((2, 2, "/popart-x", 1.0), "rank 2 of 2 processes is invalid"),
    ((0, 2, "no-slash", 1.0), "is not a valid name"),
    ((0, 2, "/a/b", 1.0), "is not a valid name"),
])
def test_bad_arguments(args, message):
    with pytest.raises(popart.popart_exception, match=message):
        popart_core._setShmProcessGroup(*args)
