"""Gradients of any tensor can be anchored (model inputs included), and a training
session whose loss depends on no trainable weight runs, updating nothing."""
import numpy as np
import pytest

import popart

SHAPE = [2, 3]
X = np.array([[0.5, -1.0, 2.0], [-0.25, 1.5, -3.0]], np.float32)


def train(proto, loss, anchors, feeds, optimizer=None, steps=1):
    s = popart.TrainingSession(proto, popart.DataFlow(1, {a: popart.AnchorReturnType("All") for a in anchors}),
                               loss, optimizer or popart.ConstSGD(0.1), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    out = s.initAnchorArrays()
    for _ in range(steps):
        s.run(popart.PyStepIO(feeds, out))
    return s, out


def test_input_gradient_is_anchored_with_weights():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", SHAPE), "x")
    w0 = np.array([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], np.float32)
    w = b.addInitializedInputTensor(w0, "w")
    y = b.aiOnnx.mul([x, w])
    loss = b.aiGraphcore.l1loss([y], 0.5, reduction=popart.ReductionType.Sum)
    gx, gw = popart.reservedGradientPrefix() + x, popart.reservedGradientPrefix() + w
    _, out = train(b.getModelProto(), loss, [gx, gw, loss], {x: X})
    # d/dx 0.5 * sum|x*w| = 0.5 * sign(x*w) * w
    np.testing.assert_allclose(out[gx], 0.5 * np.sign(X * w0) * w0, rtol=1e-6)
    np.testing.assert_allclose(out[gw], 0.5 * np.sign(X * w0) * X, rtol=1e-6)
    assert out[gx].dtype == np.float32 and out[gx].shape == tuple(SHAPE)


@pytest.mark.parametrize("dtype,np_dtype", [("FLOAT", np.float32), ("FLOAT16", np.float16)])
def test_loss_with_no_trainable_weight_runs_and_returns_input_gradients(dtype, np_dtype):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo(dtype, SHAPE), "x")
    c = b.aiOnnx.constant(np.full(SHAPE, 3.0, np_dtype))
    y = b.aiOnnx.mul([b.aiOnnx.tanh([x]), c])
    loss = b.aiGraphcore.l1loss([y], 1.0, reduction=popart.ReductionType.Sum)
    gx = popart.reservedGradientPrefix() + x
    _, out = train(b.getModelProto(), loss, [gx, loss], {x: X.astype(np_dtype)})
    xd = X.astype(np.float64)
    ref = np.sign(np.tanh(xd)) * 3.0 * (1 - np.tanh(xd) ** 2)
    assert out[gx].dtype == np_dtype
    np.testing.assert_allclose(out[gx].astype(np.float64), ref, rtol=1e-2 if np_dtype == np.float16 else 1e-5)
    np.testing.assert_allclose(out[loss], np.abs(3 * np.tanh(xd)).sum(), rtol=1e-2 if np_dtype == np.float16 else 1e-5)


def test_weights_off_the_loss_path_are_not_updated_and_model_written_back_unchanged(tmp_path):
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", SHAPE), "x")
    w = b.addInitializedInputTensor(np.arange(6, dtype=np.float32).reshape(SHAPE), "w")
    side = b.aiOnnx.add([x, w])  # an output, not on the loss path
    loss = b.aiGraphcore.l1loss([b.aiOnnx.relu([x])], 1.0, reduction=popart.ReductionType.Sum)
    b.addOutputTensor(side)
    proto = b.getModelProto()
    s, out = train(proto, loss, [loss, side], {x: X}, optimizer=popart.SGD({"defaultLearningRate": (0.5, False)}),
                   steps=3)
    np.testing.assert_allclose(out[loss], np.maximum(X, 0).sum(), rtol=1e-6)
    path = str(tmp_path / "m.onnx")
    s.modelToHost(path)
    with open(path, "rb") as f:
        assert f.read() == proto


def test_gradient_of_a_tensor_the_loss_does_not_use_is_refused():
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", SHAPE), "x")
    z = b.addInputTensor(popart.TensorInfo("FLOAT", SHAPE), "z")
    loss = b.aiGraphcore.l1loss([x], 1.0)
    b.addOutputTensor(b.aiOnnx.relu([z]))
    with pytest.raises(popart.popart_exception, match="Gradient___z"):
        train(b.getModelProto(), loss, [popart.reservedGradientPrefix() + z], {x: X, z: X})
