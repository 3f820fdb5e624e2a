"""Convolutions and poolings passing activations in oneDNN layouts: chains of them must equal torch."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart


def chain_model(w1, w2, pool_attrs, extra_reader):
    """x -> Conv(w1) -> Relu -> pool -> Conv(w2, pads 1) -> Add(pool) -> Relu -> y; extra_reader also reads
    the first conv's output with a Sigmoid (anchored as "e"), which keeps that tensor plain."""
    pool_type, attrs = pool_attrs
    nodes = [oh.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c1"], ["r1"]),
             oh.make_node(pool_type, ["r1"], ["p"], **attrs),
             oh.make_node("Conv", ["p", "w2"], ["c2"], pads=[1, 1, 1, 1]), oh.make_node("Add", ["c2", "p"], ["s"]),
             oh.make_node("Relu", ["s"], ["y"])]
    outs = [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)]
    if extra_reader:
        nodes.append(oh.make_node("Sigmoid", ["r1"], ["e"]))
        outs.append(oh.make_tensor_value_info("e", onnx.TensorProto.FLOAT, None))
    inits = [onnx.numpy_helper.from_array(w1, "w1"), onnx.numpy_helper.from_array(w2, "w2")]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3, 15, 15])], outs,
                          initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def torch_chain(x, w1, w2, pool_attrs):
    f = torch.nn.functional
    pool_type, attrs = pool_attrs
    r1 = torch.relu(f.conv2d(torch.from_numpy(x), torch.from_numpy(w1), padding=1))
    k, s, ceil = attrs["kernel_shape"], attrs["strides"], bool(attrs.get("ceil_mode", 0))
    p = (f.max_pool2d if pool_type == "MaxPool" else f.avg_pool2d)(r1, k, s, ceil_mode=ceil)
    y = torch.relu(f.conv2d(p, torch.from_numpy(w2), padding=1) + p)
    return y.numpy(), torch.sigmoid(r1).numpy()


POOLS = [("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2]}),
         ("AveragePool", {"kernel_shape": [3, 3], "strides": [2, 2]}),
         ("MaxPool", {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1})]


@pytest.mark.parametrize("pool_attrs", POOLS)
@pytest.mark.parametrize("extra_reader", [False, True])
@pytest.mark.parametrize("level", [popart.PatternsLevel.Default, popart.PatternsLevel.NoPatterns])
def test_chain_matches_torch(pool_attrs, extra_reader, level):
    rs = np.random.RandomState(0)
    x = rs.randn(2, 3, 15, 15).astype(np.float32)
    w1 = (rs.randn(32, 3, 3, 3) * 0.3).astype(np.float32)
    w2 = (rs.randn(32, 32, 3, 3) * 0.05).astype(np.float32)
    anchors = ["y", "e"] if extra_reader else ["y"]
    s = popart.InferenceSession(chain_model(w1, w2, pool_attrs, extra_reader), popart.DataFlow(1, anchors),
                                popart.DeviceManager().createCpuDevice(), patterns=popart.Patterns(level).enableRuntimeAsserts(False))
    s.prepareDevice()
    out = s.initAnchorArrays()
    for _ in range(2):  # a second run reuses the primitives and buffers
        s.run(popart.PyStepIO({"x": x}, out))
        y, e = torch_chain(x, w1, w2, pool_attrs)
        np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-4)
        if extra_reader:
            np.testing.assert_allclose(out["e"], e, rtol=1e-5, atol=1e-6)


def conv_pool_conv_model(x_shape, channels, attrs, w1, w2):
    """x -> Conv(w1, 3x..3, pads 1) -> MaxPool(attrs) -> Conv(w2, 1x..1) -> y: the pool reads and writes oneDNN
    layouts."""
    pads = [1] * 2 * (len(x_shape) - 2)
    nodes = [oh.make_node("Conv", ["x", "w1"], ["c"], pads=pads), oh.make_node("MaxPool", ["c"], ["p"], **attrs),
             oh.make_node("Conv", ["p", "w2"], ["y"])]
    inits = [onnx.numpy_helper.from_array(w1, "w1"), onnx.numpy_helper.from_array(w2, "w2")]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x_shape))],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


BLOCKED_POOLS = [  # x shape, channels, MaxPool attributes, whether the pool sees 16-channel blocks
    ((2, 3, 12, 12), 32, {"kernel_shape": [2, 2], "strides": [2, 2]}, True),
    ((1, 3, 12, 12), 16, {"kernel_shape": [3, 3], "dilations": [2, 2], "pads": [2, 2, 2, 2]}, True),
    ((2, 3, 11, 13), 48, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}, True),
    ((2, 3, 11, 13), 20, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}, None),  # 20 channels
    ((1, 3, 11, 11), 16, {"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1}, False),  # plain: ceil_mode
    ((2, 3, 17), 16, {"kernel_shape": [4], "strides": [3], "pads": [1, 2]}, None),  # 1-D
    ((1, 3, 6, 7, 5), 16, {"kernel_shape": [2, 3, 2], "strides": [2, 2, 1], "pads": [0, 1, 1, 1, 0, 0]}, None),  # 3-D
]


@pytest.mark.parametrize("x_shape,channels,attrs,blocked", BLOCKED_POOLS)
def test_max_pool_between_convs_keeps_nan(x_shape, channels, attrs, blocked, capfd):
    """MaxPool between convolutions (in oneDNN's 16-channel blocks when the conv leaves them: then one pass over
    the blocks that keeps NaN) equals torch, NaN included: each NaN of x spreads over its 3x3 neighbourhood in
    every channel."""
    rs = np.random.RandomState(1)
    x = rs.randn(*x_shape).astype(np.float32)
    x.reshape(-1)[rs.choice(x.size, max(1, x.size // 300), replace=False)] = np.nan
    r = len(x_shape) - 2
    w1 = (rs.randn(channels, x_shape[1], *([3] * r)) * 0.3).astype(np.float32)
    w2 = (rs.randn(8, channels, *([1] * r)) * 0.2).astype(np.float32)
    popart.getLogger("opx").setLevel("DEBUG")
    try:
        s = popart.InferenceSession(conv_pool_conv_model(x_shape, channels, attrs, w1, w2), popart.DataFlow(1, ["y"]),
                                    popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
    finally:
        popart.getLogger("opx").setLevel("INFO")
    if blocked is not None:  # oneDNN's choice of layout for the first convolution's output
        assert ("NaN-keeping max pool over 16-channel lanes" in capfd.readouterr().err) == blocked
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    f = torch.nn.functional
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    conv = [f.conv1d, f.conv2d, f.conv3d][r - 1]
    c = conv(t(x), t(w1), padding=1)
    pads = attrs.get("pads", [0] * 2 * r)
    c = f.pad(c, sum(([pads[i], pads[r + i]] for i in reversed(range(r))), []), value=-np.inf)
    p = [f.max_pool1d, f.max_pool2d, f.max_pool3d][r - 1](
        c, attrs["kernel_shape"], attrs.get("strides", [1] * r), dilation=attrs.get("dilations", [1] * r),
        ceil_mode=bool(attrs.get("ceil_mode", 0)))
    want = conv(p, t(w2)).numpy()
    assert np.isnan(want).any() and not np.isnan(want).all()
    np.testing.assert_array_equal(np.isnan(out["y"]), np.isnan(want))
    np.testing.assert_allclose(out["y"], want, rtol=1e-4, atol=1e-4)


def conv_pool_flatten_model(x_shape, channels, attrs, w, fc):
    """x -> Conv(w, 3x3, pads 1) -> Relu -> MaxPool(attrs) -> Flatten -> MatMul(fc) -> y: the pool reads the
    conv's oneDNN layout and writes the plain layout the Flatten needs."""
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c"], ["r"]),
             oh.make_node("MaxPool", ["r"], ["p"], **attrs), oh.make_node("Flatten", ["p"], ["f"], axis=1),
             oh.make_node("MatMul", ["f", "fc"], ["y"])]
    inits = [onnx.numpy_helper.from_array(w, "w"), onnx.numpy_helper.from_array(fc, "fc")]
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(x_shape))],
                          [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None),
                           oh.make_tensor_value_info("p", onnx.TensorProto.FLOAT, None)], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


FLATTENED_POOLS = [  # x shape, channels, MaxPool attributes, the layout the pool reads (None: oneDNN's choice)
    ((32, 32, 14, 14), 64, {"kernel_shape": [2, 2], "strides": [2, 2]}, "channels-last"),  # the MNIST CNN's second
    ((2, 3, 12, 12), 32, {"kernel_shape": [2, 2], "strides": [2, 2]}, "blocked"),
    ((2, 3, 11, 13), 48, {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}, None),
    ((2, 3, 11, 13), 20, {"kernel_shape": [3, 3], "strides": [2, 2]}, None),  # a partial last block
]


@pytest.mark.parametrize("x_shape,channels,attrs,layout", FLATTENED_POOLS)
def test_max_pool_into_flatten_keeps_nan(x_shape, channels, attrs, layout, capfd, monkeypatch):
    """MaxPool from a conv's layout (16-channel blocks or channels last) into the plain layout a Flatten reads
    equals torch, NaN included (the pooled tensor is anchored too, so it is compared directly)."""
    if layout == "channels-last":  # oneDNN's direct convolution's choice (the Winograd kernel leaves 16-channel blocks)
        monkeypatch.setenv("POPART_WINOGRAD", "0")
    rs = np.random.RandomState(2)
    x = rs.randn(*x_shape).astype(np.float32)
    x.reshape(-1)[rs.choice(x.size, max(1, x.size // 500), replace=False)] = np.nan
    w = (rs.randn(channels, x_shape[1], 3, 3) * 0.3).astype(np.float32)
    f = torch.nn.functional
    t = lambda a: torch.from_numpy(a.astype(np.float64))  # noqa: E731
    c = torch.relu(f.conv2d(t(x), t(w), padding=1))
    pads = attrs.get("pads", [0, 0, 0, 0])
    c = f.pad(c, [pads[1], pads[3], pads[0], pads[2]], value=-np.inf)
    p = f.max_pool2d(c, attrs["kernel_shape"], attrs["strides"])
    fc = (rs.randn(p[0].numel(), 5) * 0.1).astype(np.float32)
    popart.getLogger("opx").setLevel("DEBUG")
    try:
        s = popart.InferenceSession(conv_pool_flatten_model(x_shape, channels, attrs, w, fc),
                                    popart.DataFlow(1, ["y", "p"]), popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
    finally:
        popart.getLogger("opx").setLevel("INFO")
    if layout is not None:
        assert f"max pool over 16-channel lanes ({layout} input, plain output)" in capfd.readouterr().err
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    want_p = p.numpy()
    assert np.isnan(want_p).any() and not np.isnan(want_p).all()
    np.testing.assert_array_equal(np.isnan(out["p"]), np.isnan(want_p))
    np.testing.assert_allclose(out["p"], want_p, rtol=1e-4, atol=1e-4)
    want_y = (p.flatten(1) @ t(fc)).numpy()
    np.testing.assert_allclose(out["y"], want_y, rtol=1e-4, atol=1e-4)
