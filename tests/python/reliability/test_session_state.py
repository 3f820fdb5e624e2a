# Session state misuse that used to give silently wrong results: concurrent
# run() on one session, and run() after the device was detached.
import threading

import numpy as np
import pytest

import popart


def _session(n=256):
    """y = x * 2 + 1 over float32[n], one run per step."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [n]), "x")
    two = b.aiOnnx.constant(np.full([n], 2, np.float32))
    one = b.aiOnnx.constant(np.full([n], 1, np.float32))
    y = b.aiOnnx.add([b.aiOnnx.mul([x, two]), one])
    b.addOutputTensor(y)
    s = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, {y: popart.AnchorReturnType("All")}),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    return s, x, y


def _hammer(s, x, y, seed, runs, failures):
    rng = np.random.default_rng(seed)
    anchors = s.initAnchorArrays()
    for _ in range(runs):
        data = rng.standard_normal(anchors[y].shape).astype(np.float32)
        s.run(popart.PyStepIO({x: data}, anchors))
        if not np.array_equal(anchors[y], data * 2 + 1):
            failures.append(seed)


def test_concurrent_runs_on_one_session_are_serialised():
    s, x, y = _session(n=1 << 16)
    failures = []
    threads = [threading.Thread(target=_hammer, args=(s, x, y, seed, 200, failures)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_sessions_in_different_threads_stay_correct():
    sessions = [_session(n=1 << 12) for _ in range(2)]
    failures = []
    threads = [threading.Thread(target=_hammer, args=(*sessions[i], i, 200, failures)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_run_after_detach_raises_and_reattach_runs():
    s, x, y = _session(n=8)
    anchors = s.initAnchorArrays()
    data = np.arange(8, dtype=np.float32)
    s.run(popart.PyStepIO({x: data}, anchors))
    np.testing.assert_array_equal(anchors[y], data * 2 + 1)
    device = s.getDevice()
    device.detach()
    with pytest.raises(popart.popart_exception, match="detached"):
        s.run(popart.PyStepIO({x: data}, anchors))
    device.attach()
    s.loadEngineAndConnectStreams()
    s.run(popart.PyStepIO({x: data + 1}, anchors))
    np.testing.assert_array_equal(anchors[y], (data + 1) * 2 + 1)
