"""Replicated tensor sharding of the optimizer state
(optimizerStateTensorLocationSettings with replicatedTensorSharding On): each
replica keeps 1/R of every large enough state tensor and updates its part of
the weight; the replicas all-gather the weights. The weights are those of the
unsharded model, and the per-replica state memory shrinks by R."""
import re

import numpy as np
import onnx
import pytest

from replication._replica_models import initial_weights, make_data, max_rel_diff, session, train

BATCH, STEPS = 4, 3


def state_bytes(s):
    m = re.search(r"optimizer state: (\d+) bytes per replica in (\d+) tensor", s.getSummaryReport())
    return int(m.group(1)), int(m.group(2))


def expected_state_bytes(opt, replicas, rts_min):
    """FLOAT state per weight (SGD: momentum; Adam: two moments + a scalar step), sharded from rts_min elements."""
    total = 0
    for w in initial_weights().values():
        n = w.size
        part = -(-n // replicas) if replicas > 1 and n >= rts_min else n
        total += 4 * part * (1 if opt == "sgd" else 2) + (4 if opt == "adam" else 0)
    return total


@pytest.mark.parametrize("opt", ["sgd", "adam"])
@pytest.mark.parametrize("micro", [1, 3])
@pytest.mark.parametrize("replicas", [2, 3])
def test_sharded_state_trains_as_whole_state(opt, micro, replicas):
    data = make_data(STEPS, micro, replicas, BATCH)
    sharded = session(BATCH, micro, replicas, opt, rts_min=16)  # W1 (48), W2 (32) sharded; B1 (8) whole
    whole = session(BATCH, micro, replicas, opt)
    got = train(sharded, data, micro, replicas)
    want = train(whole, data, micro, replicas)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    assert max_rel_diff(got, train(session(BATCH, micro, 1, opt), [], micro, 1)) > 1e-3  # it trained
    assert state_bytes(sharded)[0] == expected_state_bytes(opt, replicas, 16)
    assert state_bytes(whole)[0] == expected_state_bytes(opt, 1, 16)


@pytest.mark.parametrize("opt", ["sgd", "adam"])
def test_two_replicas_halve_the_state_memory(opt):
    sharded, whole = session(BATCH, 1, 2, opt, rts_min=1), session(BATCH, 1, 2, opt)
    (a, n), (b, m) = state_bytes(sharded), state_bytes(whole)
    scalars = 4 * len(initial_weights()) if opt == "adam" else 0  # Adam's step counters stay whole
    assert n == m and a - scalars == (b - scalars) // 2


def test_sharded_state_is_saved_and_resumed(tmp_path):
    """modelToHost writes every replica's part of the state; a sharded session from that file continues
    exactly as the original does."""
    data = make_data(2, 1, 2, BATCH)
    s = session(BATCH, 1, 2, "adam", rts_min=16)
    train(s, data[:1], 1, 2)
    path = str(tmp_path / "m.onnx")
    s.modelToHost(path)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
    assert inits["Accl1___W1"].size == 48  # two parts of 24
    resumed = session(BATCH, 1, 2, "adam", rts_min=16, model=open(path, "rb").read())
    got, want = train(resumed, data[1:], 1, 2), train(s, data[1:], 1, 2)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_whole_state_resumes_into_a_sharded_session(tmp_path):
    data = make_data(2, 1, 2, BATCH)
    whole = session(BATCH, 1, 2, "sgd")
    train(whole, data[:1], 1, 2)
    path = str(tmp_path / "m.onnx")
    whole.modelToHost(path)
    resumed = session(BATCH, 1, 2, "sgd", rts_min=16, model=open(path, "rb").read())
    got, want = train(resumed, data[1:], 1, 2), train(whole, data[1:], 1, 2)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_lamb_keeps_whole_state():
    """Lamb's trust ratio needs the norms of the whole weight and update: its state is not sharded."""
    import popart
    from replication._replica_models import build
    proto, loss = build(BATCH, initial_weights())
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = 2
    loc = popart.TensorLocation(popart.TensorStorage.OnChip, popart.ReplicatedTensorSharding.On)
    opts.optimizerStateTensorLocationSettings = popart.TensorLocationSettings(loc, 2, 1)
    lamb = popart.Adam({"defaultLearningRate": (0.02, False)}, mode=popart.AdamMode.Lamb)
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, [loss]), loss=loss, optimizer=lamb,
                               userOptions=opts, deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    assert state_bytes(s)[0] == expected_state_bytes("adam", 1, 1)

