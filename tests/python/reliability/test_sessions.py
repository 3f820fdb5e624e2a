"""Concurrent run() on one session is serialised; run() after detach() raises."""
import threading

import numpy as np
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, session, vinfo

N = 4096


def _session():
    nodes = [oh.make_node("Mul", ["x", "x"], ["a"]), oh.make_node("Add", ["a", "x"], ["y"])]
    return session(model(nodes, [vinfo("x", shape=(N,))], [vinfo("y", shape=(N,))]), ["y"])


def _hammer(sessions, per_thread=200, threads=4):
    """Each thread runs its own inputs; returns the number of wrong anchors seen."""
    wrong = []

    def work(k):
        s = sessions[k % len(sessions)]
        rng = np.random.RandomState(k)
        for _ in range(per_thread):
            x = rng.randn(N).astype(np.float32)
            res = {"y": np.empty(N, np.float32)}
            s.run(popart.PyStepIO({"x": x}, res))
            if not np.allclose(res["y"], x * x + x):
                wrong.append(k)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return len(wrong)


def test_concurrent_runs_on_one_session_give_right_anchors():
    assert _hammer([_session()]) == 0


def test_sessions_in_different_threads_run():
    assert _hammer([_session(), _session()]) == 0


def test_run_after_detach_raises():
    s = _session()
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": np.ones(N, np.float32)}, res))
    s.getDevice().detach()
    with pytest.raises(popart.popart_exception, match="detached"):
        s.run(popart.PyStepIO({"x": np.ones(N, np.float32)}, res))
