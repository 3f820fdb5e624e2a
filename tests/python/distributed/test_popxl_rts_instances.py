"""Replica-sharded PopXL variables across distributed instances (guide 12.3 and 14.5) under the venv's
mpiexec: the shards of one variable live in different processes, collectives gather and scatter them,
and every instance reads the full updated value (checked against numpy)."""
import os

import numpy as np
import pytest

from distributed.test_mpi import mpirun  # noqa: E402

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_popxl_rts_worker.py")


@pytest.mark.parametrize("local", [1, 2])
def test_sharded_variables_span_instances(tmp_path, local):
    out = str(tmp_path / "r")
    p, _ = mpirun([out], script=WORKER, env={"POPDIST_NUM_LOCAL_REPLICAS": str(local)})
    assert p.returncode == 0, p.stdout + p.stderr
    R = 2 * local
    a = np.arange(2 * R + 1, dtype=np.float32)
    b = np.arange(3 * R, dtype=np.int32).reshape(3, R)
    for instance in range(2):
        got = dict(np.load(f"{out}.{instance}.npz"))
        assert int(got["replicas"]) == R and int(got["local"]) == local
        assert tuple(got["a_shard_shape"]) == (-(-a.size // R),)
        np.testing.assert_allclose(got["a"], a + R * 2 * a)
        np.testing.assert_array_equal(got["b"], b + 1)
        np.testing.assert_array_equal(got["b_after_write"], -b + 1)
        # "all_replicas": every instance reads each replica's value of c (shards 2 + 1 of 3 elements,
        # held by replicas of a group in different instances), and writes one value per replica
        assignment = list(got["c_assignment"])
        assert assignment == ([0, 1, 0, 1] if R == 4 else [0, 0])
        c0 = np.arange(max(assignment) * 3 + 3, dtype=np.float32).reshape(-1, 3) + 1
        d = np.arange(R * 2, dtype=np.float32).reshape(R, 2) * 10
        added = [np.concatenate([d[q] for q in range(R) if assignment[q] == assignment[r]])[:3] for r in range(R)]
        np.testing.assert_array_equal(got["c"], c0[assignment] + added)
        np.testing.assert_array_equal(got["c_after_write"], -(np.array(assignment, np.float32)[:, None] + 1) + added)
