"""Gradient accumulation fused into the weight-gradient product: a MatMulRhsGrad read only by its (summed,
FLOAT) accumulation becomes MatMulRhsGradAccumulate, which adds A^T dY to the accumulator in place. The
trained weights equal one micro-batch of the whole batch (and the unfused running-mean strategy); other
accumulations (a bias, FLOAT16, an anchored gradient, the running mean) keep their GradAccumulate."""
import json

import numpy as np
import pytest

import popart

B, IN, HID, OUT = 8, 6, 16, 4


def session(micro, dtype=np.float32, running=False, anchor_grad=False, seed=0):
    rs = np.random.RandomState(seed)
    b = popart.Builder()
    w1 = b.addInitializedInputTensor((rs.randn(IN, HID) * 0.4).astype(dtype), "W1")
    b1 = b.addInitializedInputTensor(np.zeros(HID, dtype), "B1")
    w2 = b.addInitializedInputTensor((rs.randn(HID, OUT) * 0.4).astype(dtype), "W2")
    x = b.addInputTensor(popart.TensorInfo("FLOAT16" if dtype == np.float16 else "FLOAT", [B // micro, IN]), "x")
    label = b.addInputTensor(popart.TensorInfo("INT32", [B // micro]), "label")
    h = b.aiOnnx.relu([b.aiOnnx.add([b.aiOnnx.matmul([x, w1]), b1])])
    p = b.aiOnnx.softmax([b.aiOnnx.matmul([h, w2])], axis=1)
    loss = b.aiGraphcore.nllloss([p, label], reduction=popart.ReductionType.Mean)
    opts = popart.SessionOptions()
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if running:
        opts.meanAccumulationAndReplicationReductionStrategy = popart.MeanReductionStrategy.Running
    if micro > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = micro
    anchors = {loss: popart.AnchorReturnType("All")}
    if anchor_grad:
        anchors[popart.reservedGradientPrefix() + "W2"] = popart.AnchorReturnType("All")
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, anchors), loss,
                               popart.SGD({"defaultLearningRate": (0.1, False), "defaultMomentum": (0.9, False)}),
                               popart.DeviceManager().createCpuDevice(), userOptions=opts)
    s.prepareDevice()
    s.weightsFromHost()
    return s, x, label


def op_types(s):
    return [op["type"] for op in json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]


def train(s, x, label, micro, dtype=np.float32, steps=3):
    rs = np.random.RandomState(1)
    anchors = s.initAnchorArrays()
    for _ in range(steps):
        xv = rs.randn(B, IN).astype(dtype)
        lv = rs.randint(0, OUT, B).astype(np.int32)
        if micro > 1:
            xv, lv = xv.reshape(micro, B // micro, IN), lv.reshape(micro, B // micro)
        s.run(popart.PyStepIO({x: xv, label: lv}, anchors))
    s.weightsToHost()
    out = {k: np.zeros(shape, dtype) for k, shape in (("W1", (IN, HID)), ("B1", (HID,)), ("W2", (HID, OUT)))}
    s.readWeights(popart.PyWeightsIO(out))
    return out


def test_fused_accumulation_trains_as_the_whole_batch():
    s, x, label = session(4)
    types = op_types(s)
    assert types.count("MatMulRhsGradAccumulate") == 2  # W1 and W2
    assert types.count("GradAccumulate") == 1  # the bias
    assert "MatMulRhsGrad" not in types
    got = train(s, x, label, 4)
    s1, x1, l1 = session(1)
    want = train(s1, x1, l1, 1)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
    start = train(*session(1), 1, steps=0)
    assert all(np.max(np.abs(got[k] - start[k])) > 1e-3 for k in ("W1", "W2"))  # the weights did train


@pytest.mark.parametrize("case", ["running", "anchored", "float16"])
def test_other_accumulations_are_not_fused(case):
    dtype = np.float16 if case == "float16" else np.float32
    s, x, label = session(2, dtype=dtype, running=case == "running", anchor_grad=case == "anchored")
    types = op_types(s)
    fused = types.count("MatMulRhsGradAccumulate")
    assert fused == (1 if case == "anchored" else 0), types  # anchored: W2's gradient only stays apart
    got = train(s, x, label, 2, dtype)
    s1, x1, l1 = session(1, dtype=dtype)
    want = train(s1, x1, l1, 1, dtype)
    tol = 2e-2 if dtype == np.float16 else 1e-5
    for k in want:
        assert got[k].dtype == dtype
        np.testing.assert_allclose(got[k].astype(np.float64), want[k].astype(np.float64), rtol=tol, atol=tol)
