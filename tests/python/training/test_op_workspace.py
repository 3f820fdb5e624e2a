"""Kernel temporaries share one op workspace: the gradient of a broadcast Mul needs dY * other
over the output's shape before it is summed to the weight's shape; those temporaries used to
be session-long blocks, one per op (counted as persistent memory), and now share one region
as large as the largest. The Add gradients sum dY without a temporary at all."""
import re

import numpy as np
import popart

N, D, K, LR = 256, 512, 4, 0.01


def train(x, gains, biases):
    b = popart.Builder()
    h = b.addInputTensor(popart.TensorInfo("FLOAT", [N, D]), "x")
    for k in range(K):
        g = b.addInitializedInputTensor(gains[k], f"g{k}")
        bias = b.addInitializedInputTensor(biases[k], f"b{k}")
        h = b.aiOnnx.add([b.aiOnnx.mul([h, g]), bias])
    loss = b.aiGraphcore.l1loss([h], 1.0, reduction=popart.ReductionType.Sum)
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=popart.SGD({"defaultLearningRate": (LR, False),
                                                     "defaultMomentum": (0.9, False)}),
                               deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    s.run(popart.PyStepIO({"x": x}, s.initAnchorArrays()))
    s.weightsToHost()
    out = {f"{p}{k}": np.zeros(D, np.float32) for k in range(K) for p in "gb"}
    s.readWeights(popart.PyWeightsIO(out))
    return out, s.getSummaryReport()


def reference(x, gains, biases):
    """One SGD step (no velocity yet) on sum |((x*g0+b0)*g1+b1)...|, by hand."""
    hs = [x.astype(np.float64)]
    for g, bias in zip(gains, biases):
        hs.append(hs[-1] * g + bias)
    dy = np.sign(hs[-1])
    out = {}
    for k in reversed(range(K)):
        out[f"g{k}"] = gains[k] - LR * (dy * hs[k]).sum(0)
        out[f"b{k}"] = biases[k] - LR * dy.sum(0)
        dy = dy * gains[k]
    return out


def megabytes(report, what):
    return float(re.search(what + r"[^0-9]* ([0-9.]+) MB", report).group(1))


def test_broadcast_gradient_temporaries_share_one_workspace():
    rng = np.random.RandomState(0)
    x = rng.randn(N, D).astype(np.float32)
    gains = [rng.uniform(0.5, 1.5, D).astype(np.float32) for _ in range(K)]
    biases = [rng.randn(D).astype(np.float32) for _ in range(K)]
    got, report = train(x, gains, biases)
    want = reference(x, gains, biases)
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=1e-5, atol=1e-4, err_msg=name)
        assert got[name].dtype == np.float32
    full = N * D * 4  # one [N, D] float temporary per MulArg1Grad (K of them)
    weights = 2 * K * D * 4
    # Persistent: weights, their velocities and the input; no temporaries (before: + K * full).
    persistent = megabytes(report, "persistent")
    assert persistent * 1e6 <= 2 * weights + full + 2000, report
    # The workspace is one temporary's size (page-rounded), not K of them.
    workspace = megabytes(report, "op workspace")
    assert full - 1000 <= workspace * 1e6 <= full + 8192, report  # the report rounds to 1 kB
