"""Session options that change execution, checked by their effect on the compiled IR or on the
tensors the backward pass sees (equal results with and without them are tested elsewhere)."""
import collections
import json

import numpy as np
import pytest

import popart

RNG = np.random.RandomState(0)


def ops_of(session):
    return json.loads(session.getSerializedGraph())["maingraph"]


def op_counts(session, predicate=lambda op: True):
    return collections.Counter(op["type"] for op in ops_of(session) if predicate(op))


def is_recomputed(op):
    return any("__recomputed" in o["id"] for o in op["outputs"])


def norm_model(layers=3):
    """Per layer: MatMul -> GroupNormalization -> sigmoid(n) * tanh(n); L1 loss."""
    b = popart.Builder()
    h = b.addInputTensor(popart.TensorInfo("FLOAT", [8, 16]), "x")
    for i in range(layers):
        w = b.addInitializedInputTensor(RNG.uniform(-0.5, 0.5, (16, 16)).astype(np.float32), f"w{i}")
        scale = b.addInitializedInputTensor(np.ones(16, np.float32), f"s{i}")
        bias = b.addInitializedInputTensor(np.zeros(16, np.float32), f"b{i}")
        n = b.aiGraphcore.groupnormalization([b.aiOnnx.matmul([h, w]), scale, bias], 4, 1e-5)[0]
        h = b.aiOnnx.mul([b.aiOnnx.sigmoid([n]), b.aiOnnx.tanh([n])])
    loss = b.aiGraphcore.l1loss([h], 0.1)
    return b.getModelProto(), loss


def training_session(proto, loss, anchors=(), optimizer=None, **options):
    opts = popart.SessionOptions()
    for k, v in options.items():
        setattr(opts, k, v)
    return popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, [loss, *anchors]), loss=loss,
                                  optimizer=optimizer or popart.SGD({"defaultLearningRate": (0.1, False)}),
                                  deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)


@pytest.mark.parametrize("mode,expected", [
    ("NoRecompute", {}),
    # Standard keeps the outputs of the expensive ops (MatMul) and recomputes the rest.
    ("Standard", {"GroupNormalization": 3, "Sigmoid": 3, "Tanh": 3, "Mul": 3}),
    ("NormOnly", {"GroupNormalization": 3}),
    ("RecomputeAll", {"MatMul": 3, "GroupNormalization": 3, "Sigmoid": 3, "Tanh": 3, "Mul": 3}),
])
def test_each_recompute_mode_recomputes_its_ops(mode, expected):
    proto, loss = norm_model()
    s = training_session(proto, loss, autoRecomputation=getattr(popart.RecomputationType, mode))
    assert op_counts(s, is_recomputed) == collections.Counter(expected)


@pytest.mark.parametrize("training", [False, True])
def test_host_copy_ops_are_inserted(training):
    proto, loss = norm_model(1)
    anchors = ["Gradient___w0"] if training else []
    counts = {}
    for enabled in (False, True):
        if training:
            s = training_session(proto, loss, anchors, useHostCopyOps=enabled)
        else:
            opts = popart.SessionOptions()
            opts.useHostCopyOps = enabled
            s = popart.InferenceSession(proto, popart.DataFlow(1, [loss]), popart.DeviceManager().createCpuDevice(),
                                        userOptions=opts)
        counts[enabled] = op_counts(s)
    assert counts[False]["HostLoad"] == 0 and counts[False]["HostStore"] == 0
    assert counts[True]["HostLoad"] == 1  # the one input, x
    assert counts[True]["HostStore"] == 1 + len(anchors)


def test_loss_scaling_scales_the_gradients_of_the_backward_pass():
    """The backward pass is seeded with the loss-scaling factor: the gradients it computes (anchored
    as Gradient___w) are that factor times the true ones; the update divides it out again."""
    proto, loss = norm_model(2)
    x = RNG.uniform(-1, 1, (8, 16)).astype(np.float32)
    grads = {}
    for ls in (1.0, 64.0):
        opt = popart.SGD({"defaultLearningRate": (0.1, False), "lossScaling": (ls, True)})
        s = training_session(proto, loss, ["Gradient___w0", "Gradient___w1"], optimizer=opt)
        s.prepareDevice()
        s.weightsFromHost()
        anchors = s.initAnchorArrays()
        s.run(popart.PyStepIO({"x": x}, anchors))
        grads[ls] = {k: anchors[k].copy() for k in ("Gradient___w0", "Gradient___w1")}
    for k in grads[1.0]:
        assert np.abs(grads[1.0][k]).max() > 0
        np.testing.assert_allclose(grads[64.0][k], 64.0 * grads[1.0][k], rtol=1e-5, atol=1e-7)
