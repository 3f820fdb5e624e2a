"""MaxPoolReluFusion: in inference, a Relu read only by a MaxPool is applied by the MaxPool after pooling
(relu(max) = max(relu), NaN kept): the Relu op disappears, and a Conv before it is no longer fused with it."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16, np.float64: onnx.TensorProto.DOUBLE}
TOL = {np.float32: 1e-4, np.float16: 2e-2, np.float64: 1e-10}


def model(dtype, x_shape, pool, conv_channels=None, after="identity", seed=0):
    """x [-> Conv(w, pads 1)] -> Relu -> MaxPool(pool) -> after ("identity", "flatten" or "conv": a 1x1 Conv)
    -> y; returns (model bytes, weights)."""
    t = TYPES[dtype]
    rs = np.random.RandomState(seed)
    nodes, inits, weights, last = [], [], {}, "x"
    if conv_channels:
        weights["w"] = (rs.randn(conv_channels, x_shape[1], 3, 3) * 0.3).astype(dtype)
        nodes.append(oh.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]))
        last = "c"
    nodes += [oh.make_node("Relu", [last], ["r"]), oh.make_node("MaxPool", ["r"], ["p"], **pool)]
    if after == "flatten":
        nodes.append(oh.make_node("Flatten", ["p"], ["y"], axis=1))
    elif after == "conv":
        channels = conv_channels or x_shape[1]
        weights["w2"] = (rs.randn(8, channels, 1, 1) * 0.2).astype(dtype)
        nodes.append(oh.make_node("Conv", ["p", "w2"], ["y"]))
    else:
        nodes.append(oh.make_node("Identity", ["p"], ["y"]))
    inits = [onnx.numpy_helper.from_array(v, k) for k, v in weights.items()]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", t, list(x_shape))],
                          [oh.make_tensor_value_info("y", t, None)], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString(), weights


def reference(x, weights, pool, after):
    f = torch.nn.functional
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    h = t(x)
    if "w" in weights:
        h = f.conv2d(h, t(weights["w"]), padding=1)
    h = torch.relu(h)
    pads = pool.get("pads", [0, 0, 0, 0])
    h = f.pad(h, [pads[1], pads[3], pads[0], pads[2]], value=-np.inf)
    h = f.max_pool2d(h, pool["kernel_shape"], pool.get("strides", [1, 1]), ceil_mode=bool(pool.get("ceil_mode", 0)))
    if after == "flatten":
        h = h.flatten(1)
    elif after == "conv":
        h = f.conv2d(h, t(weights["w2"]))
    return h.numpy()


def run(proto, x, fusion):
    patterns = popart.Patterns()
    patterns.enablePattern("MaxPoolReluFusion", fusion)
    s = popart.InferenceSession(proto, popart.DataFlow(1, ["y"]), popart.DeviceManager().createCpuDevice(),
                                patterns=patterns)
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    ops = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]
    return out["y"], ops


POOL = {"kernel_shape": [2, 2], "strides": [2, 2]}
CASES = [  # dtype, x shape, pool, conv channels, after
    (np.float32, [2, 3, 8, 10], POOL, None, "identity"),  # plain input: oneDNN's pooling, then the Relu pass
    (np.float32, [32, 32, 14, 14], POOL, 64, "flatten"),  # the MNIST CNN's second block: 16-channel lanes
    (np.float32, [2, 3, 12, 12], POOL, 32, "conv"),  # lanes into the blocked layout the next Conv reads
    (np.float32, [2, 3, 11, 13], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}, 20, "flatten"),
    (np.float32, [1, 3, 11, 11], {"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1}, 16, "identity"),
    (np.float16, [2, 4, 8, 8], POOL, None, "identity"),
    (np.float64, [2, 4, 9, 8], {"kernel_shape": [3, 3], "strides": [2, 2]}, 8, "identity"),  # plain loops
]


@pytest.mark.parametrize("dtype,x_shape,pool,channels,after", CASES)
def test_relu_folded_into_max_pool_equals_torch(dtype, x_shape, pool, channels, after):
    rs = np.random.RandomState(1)
    x = rs.randn(*x_shape).astype(dtype)
    flat = x.reshape(-1)
    picks = rs.choice(x.size, max(3, x.size // 200), replace=False)
    flat[picks[0::3]], flat[picks[1::3]], flat[picks[2::3]] = np.nan, np.inf, -np.inf
    proto, weights = model(dtype, x_shape, pool, channels, after)
    want = reference(x, weights, pool, after)
    assert np.isnan(want).any() and ((want == 0).any() or after == "conv" or channels)
    for fusion in (True, False):
        y, ops = run(proto, x, fusion)
        types = [op["type"] for op in ops]
        pools = [op for op in ops if op["type"] == "MaxPool"]
        if fusion:  # the Relu is gone; the MaxPool applies it
            assert "Relu" not in types and "ReluInplace" not in types, types
            assert pools[0]["attributes"].get("__relu") == "1"
        else:  # a Relu op, or the ConvFused's relu
            assert "__relu" not in pools[0]["attributes"]
            assert any(t in types for t in ("Relu", "ReluInplace", "ConvFused")), types
        assert y.dtype == dtype and y.shape == want.shape
        np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=TOL[dtype], atol=TOL[dtype])
        assert not np.signbit(y[want == 0]).any(), "Relu gave -0"


def test_relu_with_other_readers_stays():
    """The Relu's result also read elsewhere (anchored): not folded."""
    proto, _ = model(np.float32, [1, 2, 4, 4], POOL)
    s = popart.InferenceSession(proto, popart.DataFlow(1, ["y", "r"]), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    types = [op["type"] for op in json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]]
    assert "Relu" in types or "ReluInplace" in types


def test_training_graphs_keep_the_relu():
    """Autodiff needs the Relu (its gradient reads its output): training sessions leave it alone."""
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 2, 4, 4]), "x")
    w = b.addInitializedInputTensor(np.ones([2, 2, 1, 1], np.float32), "w")
    c = b.aiOnnx.conv([x, w])
    p = b.aiOnnx.maxpool([b.aiOnnx.relu([c])], num_outputs=1, kernel_shape=[2, 2], strides=[2, 2])[0]
    loss = b.aiGraphcore.l1loss([p], 1.0)
    s = popart.TrainingSession(b.getModelProto(), popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=popart.ConstSGD(0.1), deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    ops = json.loads(s._serializeIr(popart.IrSerializationFormat.JSON))["maingraph"]
    assert any(op["type"] in ("Relu", "ReluInplace") for op in ops)
    assert all("__relu" not in op.get("attributes", {}) for op in ops)
