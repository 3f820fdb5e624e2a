"""Inference sessions keep convolution weights only in oneDNN's layout (plus the host copy): the plain
device copy is freed when nothing else reads it, and weightsToHost / readWeights / modelToHost reorder the
kernel's copy back."""
import re

import numpy as np
import onnx
import pytest
import torch
import torch.nn.functional as F

import popart

C = 32  # channels: each weight (37 KB) is larger than the input (37 KB) and the other persistent tensors

def persistent_mb(session):
    report = session.getSummaryReport()
    return float(re.search(r"persistent \(weights, inputs, constants\) ([0-9.]+) MB", report).group(1))


def prepared(b, y, ws, also_read):
    """The inference session of builder `b` anchoring `y`; with also_read, a ReduceSum of ws[1] is an
    anchor too (so the host is not the only reader of that weight)."""
    anchors = {y: popart.AnchorReturnType("All")}
    if also_read:
        anchors[b.aiOnnx.reducesum([ws[1]], keepdims=0)] = popart.AnchorReturnType("All")
    s = popart.InferenceSession(b.getModelProto(), popart.DataFlow(1, anchors), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    return s


def conv_session(w_values, also_read=False, op="conv"):
    """x -> conv(w0) -> relu -> conv(w1) -> y; with also_read, w1 also feeds a ReduceSum anchor."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, C, 12, 12]))
    ws = [b.addInitializedInputTensor(v, f"w{i}") for i, v in enumerate(w_values)]
    conv = getattr(b.aiOnnx, op)
    y = conv([b.aiOnnx.relu([conv([x, ws[0]], pads=[1, 1, 1, 1])]), ws[1]], pads=[1, 1, 1, 1])
    return prepared(b, y, ws, also_read), x, y, ws


def weights(rng, scale=1.0):
    return [(rng.standard_normal((C, C, 3, 3)) * 0.1 * scale).astype(np.float32) for _ in range(2)]


def reference(xv, ws):
    t = lambda a: torch.tensor(a.astype(np.float64))
    return F.conv2d(torch.relu(F.conv2d(t(xv), t(ws[0]), padding=1)), t(ws[1]), padding=1).numpy()


def run(s, x, y, xv):
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({x: xv}, anchors))
    return anchors[y]


def test_plain_copy_of_conv_weights_is_freed(monkeypatch):
    # oneDNN's convolutions (a Winograd convolution keeps the plain weights: its direct fallback for
    # non-finite inputs reads them).
    monkeypatch.setenv("POPART_WINOGRAD", "0")
    rng = np.random.default_rng(0)
    ws = weights(rng)
    wbytes = sum(w.nbytes for w in ws) / 1e6
    dropped, x, y, _ = conv_session(ws)
    kept, _, _, _ = conv_session(ws, also_read=True)  # w1 is read in plain layout too: its buffer stays
    assert persistent_mb(kept) - persistent_mb(dropped) == pytest.approx(ws[1].nbytes / 1e6, abs=2e-3)
    x_mb = 2 * C * 12 * 12 * 4 / 1e6
    assert persistent_mb(dropped) < x_mb + 0.002 < wbytes  # the input stream only, no weights
    xv = rng.standard_normal((2, C, 12, 12)).astype(np.float32)
    np.testing.assert_allclose(run(dropped, x, y, xv), reference(xv, ws), rtol=1e-4, atol=1e-4)


def test_training_keeps_device_weights():
    rng = np.random.default_rng(1)
    ws = weights(rng)
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, C, 12, 12]))
    w = b.addInitializedInputTensor(ws[0], "w0")
    loss = b.aiGraphcore.l1loss([b.aiOnnx.conv([x, w], pads=[1, 1, 1, 1])], 1.0)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    assert persistent_mb(s) >= ws[0].nbytes / 1e6


def test_weights_read_back_from_the_kernel_layout(tmp_path):
    rng = np.random.default_rng(2)
    ws = weights(rng)
    s, x, y, ids = conv_session(ws)
    xv = rng.standard_normal((2, C, 12, 12)).astype(np.float32)
    run(s, x, y, xv)
    s.weightsToHost()
    out = {i: np.zeros_like(w) for i, w in zip(ids, ws)}
    s.readWeights(popart.PyWeightsIO(out))
    for i, w in zip(ids, ws):
        np.testing.assert_array_equal(out[i], w)
    path = str(tmp_path / "model.onnx")
    s.modelToHost(path)
    saved = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    for i, w in zip(ids, ws):
        np.testing.assert_array_equal(saved[i], w)


@pytest.mark.parametrize("op", ["conv", "convtranspose"])
def test_weights_change_only_with_weights_from_host(op):
    rng = np.random.default_rng(3)
    ws = weights(rng)
    s, x, y, ids = conv_session(ws, op=op)
    xv = rng.standard_normal((2, C, 12, 12)).astype(np.float32)
    t = lambda a: torch.tensor(a.astype(np.float64))
    fn = F.conv_transpose2d if op == "convtranspose" else F.conv2d
    ref = lambda w: fn(torch.relu(fn(t(xv), t(w[0]), padding=1)), t(w[1]), padding=1).numpy()
    np.testing.assert_allclose(run(s, x, y, xv), ref(ws), rtol=1e-4, atol=1e-4)
    new = weights(rng, scale=2.0)
    s.writeWeights(popart.PyWeightsIO(dict(zip(ids, new))))
    np.testing.assert_allclose(run(s, x, y, xv), ref(ws), rtol=1e-4, atol=1e-4)  # device still has the old ones
    s.weightsFromHost()
    np.testing.assert_allclose(run(s, x, y, xv), ref(new), rtol=1e-4, atol=1e-4)
    s.weightsToHost()  # the device copy (new) back to the host
    out = {i: np.zeros_like(w) for i, w in zip(ids, new)}
    s.readWeights(popart.PyWeightsIO(out))
    for i, w in zip(ids, new):
        np.testing.assert_array_equal(out[i], w)


def linear_session(w_values, also_read=False):
    """x [16, 64] -> Gemm(w0 [48, 64], transB=1, bias) -> Relu -> MatMul(w1 [48, 40]) -> y; with also_read, w1
    also feeds a ReduceSum anchor. Both weights are reordered into the matmul's packed layout once per host
    write."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [16, 64]))
    ws = [b.addInitializedInputTensor(v, f"lin{i}") for i, v in enumerate(w_values)]
    bias = b.addInitializedInputTensor(np.linspace(-1, 1, 48).astype(np.float32), "bias")
    h = b.aiOnnx.relu([b.aiOnnx.gemm([x, ws[0], bias], transB=1)])
    y = b.aiOnnx.matmul([h, ws[1]])
    return prepared(b, y, ws, also_read), x, y, ws


def linear_weights(rng, scale=1.0):
    return [(rng.standard_normal(shape) * 0.1 * scale).astype(np.float32) for shape in [(48, 64), (48, 40)]]


def linear_reference(xv, ws):
    h = np.maximum(xv.astype(np.float64) @ ws[0].astype(np.float64).T + np.linspace(-1, 1, 48), 0)
    return h @ ws[1].astype(np.float64)


def test_matmul_weights_live_in_the_packed_layout_only():
    """Gemm and MatMul weights only the host writes: packed once per host write, the plain device copy freed
    (unless another op reads it), results, read-back and weightsFromHost as with the plain layout."""
    rng = np.random.default_rng(4)
    ws = linear_weights(rng)
    dropped, x, y, ids = linear_session(ws)
    kept, _, _, _ = linear_session(ws, also_read=True)
    assert persistent_mb(kept) - persistent_mb(dropped) == pytest.approx(ws[1].nbytes / 1e6, abs=2e-3)
    assert persistent_mb(dropped) < (16 * 64 + 48) * 4 / 1e6 + 0.002  # the input and the bias only
    xv = rng.standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_allclose(run(dropped, x, y, xv), linear_reference(xv, ws), rtol=1e-4, atol=1e-4)
    new = linear_weights(rng, scale=2.0)
    dropped.writeWeights(popart.PyWeightsIO(dict(zip(ids, new))))
    np.testing.assert_allclose(run(dropped, x, y, xv), linear_reference(xv, ws), rtol=1e-4, atol=1e-4)
    dropped.weightsFromHost()
    np.testing.assert_allclose(run(dropped, x, y, xv), linear_reference(xv, new), rtol=1e-4, atol=1e-4)
    dropped.weightsToHost()
    out = {i: np.zeros_like(w) for i, w in zip(ids, new)}
    dropped.readWeights(popart.PyWeightsIO(out))
    for i, w in zip(ids, new):
        np.testing.assert_array_equal(out[i], w)
