"""Recomputation: autoRecomputation (NoRecompute, Standard, NormOnly, RecomputeAll)
and Builder.recomputeOutputInBackwardPass give the same weights as no
recomputation, the recomputed copies run in the backward pass, and the
activation memory planned for the step shrinks."""
import re

import numpy as np
import pytest

import popart

SHAPE = (64, 256)


def build(layers=6, dropout=False, mark=None):
    """Per layer: t = tanh(h * w_i); s = sigmoid(t); h = s * t, the layer output
    a checkpoint (RecomputeType.Checkpoint); loss = l1(h). The grad ops need t
    and s of every layer: recomputed, only one layer's are live at a time.
    `mark`: (layer, RecomputeType) set on that layer's t instead."""
    rng = np.random.RandomState(0)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", list(SHAPE)), "x")
    h = x
    for i in range(layers):
        w = b.addInitializedInputTensor(rng.uniform(0.5, 1.5, SHAPE).astype(np.float32), f"w{i}")
        t = b.aiOnnx.tanh([b.aiOnnx.mul([h, w])])
        if dropout and i == 1:
            t = b.aiOnnx.dropout([t], 1, 0.3)[0]
        if mark and mark[0] == i:
            b.recomputeOutputInBackwardPass(t, mark[1])
        h = b.aiOnnx.mul([b.aiOnnx.sigmoid([t]), t])
        b.recomputeOutputInBackwardPass(h, popart.RecomputeType.Checkpoint)
    loss = b.aiGraphcore.l1loss([h], 0.1, reduction=popart.ReductionType.Mean)
    return b.getModelProto(), loss, [f"w{i}" for i in range(layers)]


def train(mode="NoRecompute", steps=2, **kw):
    proto, loss, weights = build(**kw)
    opts = popart.SessionOptions()
    opts.autoRecomputation = getattr(popart.RecomputationType, mode)
    s = popart.TrainingSession(fnModel=proto, dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=popart.SGD({"defaultLearningRate": (0.5, False)}),
                               deviceInfo=popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    s.setRandomSeed(7)
    rng = np.random.RandomState(1)
    for _ in range(steps):
        s.run(popart.PyStepIO({"x": rng.randn(*SHAPE).astype(np.float32)}, s.initAnchorArrays()))
    s.weightsToHost()
    out = {w: np.zeros(SHAPE, np.float32) for w in weights}
    s.readWeights(popart.PyWeightsIO(out))
    report = s.getSummaryReport()
    arena = float(re.search(r"activations arena ([0-9.]+) MB", report).group(1))
    return out, arena, report


@pytest.mark.parametrize("mode", ["Standard", "NormOnly", "RecomputeAll"])
def test_same_weights(mode):
    want, _, _ = train("NoRecompute")
    got, _, _ = train(mode)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_recompute_all_plans_less_memory():
    _, base, report0 = train("NoRecompute", steps=1)
    _, less, report1 = train("RecomputeAll", steps=1)
    assert "__recomputed" not in report0 and "__recomputed" in report1
    # Without recomputation three tensors per layer stay live until the
    # backward pass; with it one per layer plus one recomputed layer.
    assert less < 0.6 * base, (less, base)


def test_dropout_mask_is_regenerated():
    want, _, _ = train("NoRecompute", dropout=True)
    got, _, report = train("RecomputeAll", dropout=True)
    assert "Dropout" in report
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_builder_marks():
    want, _, _ = train("NoRecompute")
    got, _, report = train("NoRecompute", mark=(2, popart.RecomputeType.Recompute))
    assert "__recomputed" in report
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    _, _, report = train("RecomputeAll", mark=(2, popart.RecomputeType.Checkpoint), steps=1)
    assert "__recomputed" in report
