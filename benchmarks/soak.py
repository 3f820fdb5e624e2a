"""Soak benchmark: many inference runs and training steps, reporting RSS and open file descriptors.

Usage: PYTHONPATH=python:build/main/cpp/bindings python benchmarks/soak.py [--runs 100000] [--steps 10000]
Prints RSS (MiB) and open fds at regular checkpoints; exits non-zero when either grows by more than the
allowed slack between the first checkpoint (after warm-up) and the last.
"""
import argparse
import os
import sys

import numpy as np
import onnx
import onnx.helper as oh

import popart


def rss_mib():
    """Resident set size of this process, in MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_fds():
    """Number of open file descriptors of this process."""
    return len(os.listdir("/proc/self/fd"))


def _model(training):
    w = oh.make_tensor("w", onnx.TensorProto.FLOAT, [64, 64], np.random.RandomState(0).randn(64 * 64) * 0.05)
    nodes = [oh.make_node("MatMul", ["x", "w"], ["h"]), oh.make_node("Relu", ["h"], ["y"])]
    outs = [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [16, 64])]
    if training:
        nodes.append(oh.make_node("ReduceSum", ["y"], ["l"], keepdims=0))
        outs = [oh.make_tensor_value_info("l", onnx.TensorProto.FLOAT, [])]
    g = oh.make_graph(nodes, "soak", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [16, 64])], outs, [w])
    return oh.make_model(g, opset_imports=[oh.make_opsetid("", 13)]).SerializeToString()


def soak(session, count, label, checkpoints=10):
    """Runs `count` steps, returns the (rss, fds) samples taken along the way."""
    x = np.random.RandomState(1).randn(16, 64).astype(np.float32)
    res = session.initAnchorArrays()
    io = popart.PyStepIO({"x": x}, res)
    samples = []
    every = max(count // checkpoints, 1)
    for i in range(1, count + 1):
        session.run(io)
        if i % every == 0:
            samples.append((rss_mib(), open_fds()))
            print(f"{label} {i:>7}: rss {samples[-1][0]:8.1f} MiB, open fds {samples[-1][1]}", flush=True)
    return samples


def main():
    """Runs the soak and checks that memory and descriptors stay flat."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=10_000)
    ap.add_argument("--rss-slack-mib", type=float, default=16.0)
    a = ap.parse_args()
    dev = popart.DeviceManager().createCpuDevice()
    inf = popart.InferenceSession(_model(False), popart.DataFlow(1, ["y"]), dev)
    inf.prepareDevice()
    samples = soak(inf, a.runs, "inference")
    tr = popart.TrainingSession(_model(True), popart.DataFlow(1, ["l"]), "l",
                                popart.SGD({"defaultLearningRate": (1e-4, False)}),
                                popart.DeviceManager().createCpuDevice())
    tr.prepareDevice()
    tr.weightsFromHost()
    samples += soak(tr, a.steps, "training")
    (rss0, fd0), (rss1, fd1) = samples[0], samples[-1]
    print(f"rss growth {rss1 - rss0:+.1f} MiB, fd growth {fd1 - fd0:+d}")
    return 0 if rss1 - rss0 <= a.rss_slack_mib and fd1 <= fd0 else 1


if __name__ == "__main__":
    sys.exit(main())
