"""Replicas running concurrently train exactly like one replica on the
replicas-times larger batch; a failing replica fails the run without hanging."""
import time

import numpy as np
import pytest

import popart
from replication._replica_models import make_data, max_rel_diff, merged, session, train

BATCH, STEPS = 4, 3


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("micro", [1, 3])
@pytest.mark.parametrize("replicas", [2, 4])
def test_replicas_equal_one_replica_on_larger_batch(opt, micro, replicas):
    data = make_data(STEPS, micro, replicas, BATCH)
    got = train(session(BATCH, micro, replicas, opt), data, micro, replicas)
    want = train(session(replicas * BATCH, micro, 1, opt), merged(data, replicas), micro, 1)
    # Only the summation order differs (per-replica partial sums).
    assert max_rel_diff(got, want) <= 1e-6
    start = train(session(BATCH, micro, 1, opt), [], micro, 1)
    assert max_rel_diff(got, start) > 1e-3  # the weights did train


@pytest.mark.parametrize("opt,micro", [("sgd", 1), ("adam", 3)])
def test_merged_gradient_allreduce_is_one_collective_with_the_same_result(opt, micro):
    """replicatedCollectivesSettings.mergeAllReduceCollectives (always on across
    processes): the weights' gradient reductions become one fused all-reduce."""
    data = make_data(STEPS, micro, 2, BATCH)
    merged_s = session(BATCH, micro, 2, opt, merge_allreduce=True)
    plain_s = session(BATCH, micro, 2, opt)

    def collectives(s):
        ir = s.getSerializedGraph().decode()
        return ir.count('"ReplicatedAllReduceFused'), ir.count('"ReplicatedAllReduce"') + ir.count(
            '"ReplicatedAllReduceInplace"')

    assert collectives(merged_s) == (1, 0)
    assert collectives(plain_s) == (0, 3)  # W1, B1, W2
    got = train(merged_s, data, micro, 2)
    want = train(plain_s, data, micro, 2)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    start = train(session(BATCH, micro, 1, opt), [], micro, 1)
    assert max_rel_diff(got, start) > 1e-3


def test_report_shows_replica_threads():
    s = session(BATCH, 1, 2, "sgd")
    assert "replicas: 2 in this process" in s.getSummaryReport()


@pytest.mark.parametrize("replicas,bad_replica", [(2, 1), (4, 2)])
def test_failing_replica_fails_the_run_and_session_recovers(replicas, bad_replica):
    """One replica gets an out-of-range label: the others wait for it in the
    gradient all-reduce and must be released with its error, which names it, not hang."""
    data = make_data(1, 1, replicas, BATCH)
    s = session(BATCH, 1, replicas, "sgd")
    bad = [{"x": data[0]["x"], "label": data[0]["label"].copy()}]
    bad[0]["label"][0, bad_replica, 0] = 99
    t0 = time.time()
    with pytest.raises(popart.popart_exception, match=f"^replica {bad_replica}: .*99"):
        train(s, bad, 1, replicas)
    assert time.time() - t0 < 30
    train(s, data, 1, replicas)  # the next run works


def test_broadcast_weights_root_out_of_range():
    s = session(BATCH, 1, 2, "sgd")
    s.broadcastWeights(0)  # replica 0 to all: no change
    with pytest.raises(popart.popart_exception, match="out of range"):
        s.broadcastWeights(5)
