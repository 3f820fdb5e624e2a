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


def test_report_shows_replica_threads():
    s = session(BATCH, 1, 2, "sgd")
    assert "replicas: 2 in this process" in s.getSummaryReport()


def test_failing_replica_fails_the_run_and_session_recovers():
    """Replica 1 gets an out-of-range label: replica 0 waits for it in the gradient
    all-reduce and must be released with the error, not hang."""
    data = make_data(1, 1, 2, BATCH)
    s = session(BATCH, 1, 2, "sgd")
    bad = [{"x": data[0]["x"], "label": data[0]["label"].copy()}]
    bad[0]["label"][0, 1, 0] = 99
    t0 = time.time()
    with pytest.raises(popart.popart_exception):
        train(s, bad, 1, 2)
    assert time.time() - t0 < 30
    train(s, data, 1, 2)  # the next run works


def test_broadcast_weights_root_out_of_range():
    s = session(BATCH, 1, 2, "sgd")
    s.broadcastWeights(0)  # replica 0 to all: no change
    with pytest.raises(popart.popart_exception, match="out of range"):
        s.broadcastWeights(5)


def test_grouped_variable_settings_are_refused_not_ignored():
    """One value per replica group is not implemented: a clear error, not every replica sharing one value."""
    b = popart.Builder()
    vs = popart.VariableSettings(popart.CommGroup(popart.CommGroupType.Consecutive, 2),
                                 popart.VariableRetrievalMode.OnePerGroup)
    w = b.addInitializedInputTensor(np.ones((2, 3), np.float32), vs, "w")
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [3]), "x")
    y = b.aiOnnx.add([x, w])
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = 4
    with pytest.raises(popart.popart_exception, match="grouped variables"):
        popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [y]), userOptions=opts,
                                deviceInfo=popart.DeviceManager().createCpuDevice())
