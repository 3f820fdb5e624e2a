"""ConvFusion pattern: Conv(+Add)(+Relu) chains become one ConvFused op in inference sessions."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart
from core._training_graph import loss_model, train_step

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16, np.float64: onnx.TensorProto.DOUBLE}
TOL = {np.float32: (1e-4, 1e-4), np.float16: (1e-2, 2e-2), np.float64: (1e-10, 1e-10)}


def conv_model(dtype, chain, x_shape, w, b, z_shape, anchors=("y",), pads=(1, 1, 1, 1)):
    """x -> Conv(w, b) -> chain ("relu", "add", "radd": Z + conv, "add_relu") -> y; returns (model, y shape)."""
    t = TYPES[dtype]
    inits = [onnx.numpy_helper.from_array(w, "w")]
    conv_in = ["x", "w"]
    if b is not None:
        inits.append(onnx.numpy_helper.from_array(b, "b"))
        conv_in.append("b")
    nodes = [oh.make_node("Conv", conv_in, ["c"], pads=list(pads))]
    inputs = [oh.make_tensor_value_info("x", t, list(x_shape))]
    if "add" in chain:
        inputs.append(oh.make_tensor_value_info("z", t, list(z_shape)))
        nodes.append(oh.make_node("Add", ["z", "c"] if chain == "radd" else ["c", "z"], ["s"]))
    last = "s" if "add" in chain else "c"
    if chain in ("relu", "add_relu"):
        nodes.append(oh.make_node("Relu", [last], ["r"]))
        last = "r"
    nodes.append(oh.make_node("Identity", [last], ["y"]))
    outs = [oh.make_tensor_value_info(a, t, None) for a in anchors]
    graph = oh.make_graph(nodes, "g", inputs, outs, initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def run(model, feeds, anchors, patterns):
    s = popart.InferenceSession(model, popart.DataFlow(1, list(anchors)), popart.DeviceManager().createCpuDevice(),
                                patterns=patterns)
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    types = [op["type"] for op in json.loads(s.getSerializedGraph())["maingraph"]]
    return out, types


def reference(chain, x, w, b, z):
    t = lambda a: torch.from_numpy(a.astype(np.float64))
    y = torch.nn.functional.conv2d(t(x), t(w), None if b is None else t(b), padding=1)
    if "add" in chain:
        y = y + t(z)
    if "relu" in chain:
        y = torch.relu(y)
    return y.numpy()


def no_fusion():
    p = popart.Patterns()
    p.enablePattern("ConvFusion", False)
    return p


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("chain", ["relu", "add", "radd", "add_relu"])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_matches_reference_and_unfused(dtype, chain, bias):
    rs = np.random.RandomState(0)
    x = rs.randn(2, 5, 9, 8).astype(dtype)
    w = (rs.randn(16, 5, 3, 3) * 0.3).astype(dtype)
    b = rs.randn(16).astype(dtype) if bias else None
    z = rs.randn(2, 16, 9, 8).astype(dtype)
    feeds = {"x": x, "z": z} if "add" in chain else {"x": x}
    model = conv_model(dtype, chain, x.shape, w, b, z.shape)
    fused, types = run(model, feeds, ["y"], popart.Patterns())
    assert "ConvFused" in types and "Conv" not in types and "Relu" not in types and "Add" not in types
    plain, plain_types = run(model, feeds, ["y"], no_fusion())
    assert "ConvFused" not in plain_types and "Conv" in plain_types
    rtol, atol = TOL[dtype]
    ref = reference(chain, x, w, b, z)
    np.testing.assert_allclose(fused["y"].astype(np.float64), ref, rtol=rtol, atol=atol)
    np.testing.assert_allclose(fused["y"], plain["y"], rtol=rtol, atol=atol)


def test_resnet_sized_residual():
    rs = np.random.RandomState(1)
    x = rs.randn(2, 64, 14, 14).astype(np.float32)
    w = (rs.randn(64, 64, 3, 3) * 0.05).astype(np.float32)
    b = rs.randn(64).astype(np.float32)
    z = rs.randn(2, 64, 14, 14).astype(np.float32)
    out, types = run(conv_model(np.float32, "add_relu", x.shape, w, b, z.shape), {"x": x, "z": z}, ["y"],
                     popart.Patterns())
    assert types.count("ConvFused") == 1
    np.testing.assert_allclose(out["y"], reference("add_relu", x, w, b, z), rtol=1e-4, atol=1e-4)


def test_anchored_intermediate_is_not_fused():
    rs = np.random.RandomState(2)
    x, w = rs.randn(1, 3, 6, 6).astype(np.float32), rs.randn(4, 3, 3, 3).astype(np.float32)
    z = rs.randn(1, 4, 6, 6).astype(np.float32)
    model = conv_model(np.float32, "add_relu", x.shape, w, None, z.shape, anchors=("y", "c"))
    out, types = run(model, {"x": x, "z": z}, ["y", "c"], popart.Patterns())
    assert "ConvFused" not in types
    np.testing.assert_allclose(out["c"], reference("conv", x, w, None, z), rtol=1e-4, atol=1e-4)
    model = conv_model(np.float32, "add_relu", x.shape, w, None, z.shape, anchors=("y", "s"))
    out, types = run(model, {"x": x, "z": z}, ["y", "s"], popart.Patterns())
    assert "ConvFused" in types and "Relu" in types and "Add" not in types  # Conv + Add fused, Relu kept
    np.testing.assert_allclose(out["s"], reference("add", x, w, None, z), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["y"], reference("add_relu", x, w, None, z), rtol=1e-4, atol=1e-4)


def test_broadcast_add_is_not_fused():
    rs = np.random.RandomState(3)
    x, w = rs.randn(1, 3, 6, 6).astype(np.float32), rs.randn(4, 3, 3, 3).astype(np.float32)
    z = rs.randn(4, 1, 1).astype(np.float32)
    out, types = run(conv_model(np.float32, "add", x.shape, w, None, z.shape), {"x": x, "z": z}, ["y"],
                     popart.Patterns())
    assert "ConvFused" not in types
    np.testing.assert_allclose(out["y"], reference("add", x, w, None, z), rtol=1e-4, atol=1e-4)


def test_training_keeps_conv_and_relu():
    rs = np.random.RandomState(4)
    x = rs.randn(2, 3, 6, 6).astype(np.float32)
    w = rs.randn(4, 3, 3, 3).astype(np.float32)
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), oh.make_node("Relu", ["c"], ["r"])]
    model = loss_model(nodes, x, "r", [onnx.numpy_helper.from_array(w, "w")])
    out, types = train_step(model, ["r", "Gradient___w"], x)
    assert "ConvFused" not in types
    xt, wt = torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)).requires_grad_()
    r = torch.relu(torch.nn.functional.conv2d(xt, wt, padding=1))
    r.sum().backward()
    np.testing.assert_allclose(out["r"], r.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["Gradient___w"], wt.grad.numpy(), rtol=1e-4, atol=1e-3)


def bn_model(dtype, chain, x_shape, w, params, z_shape=None):
    """x -> Conv(w) -> BatchNormalization(params) -> chain ("", "relu", "add_relu": + z, relu) -> y."""
    t = TYPES[dtype]
    names = ["scale", "bias", "mean", "var"]
    inits = [onnx.numpy_helper.from_array(w, "w")] + [onnx.numpy_helper.from_array(p, n) for p, n in zip(params, names)]
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             oh.make_node("BatchNormalization", ["c"] + names, ["n"], epsilon=1e-3)]
    inputs = [oh.make_tensor_value_info("x", t, list(x_shape))]
    last = "n"
    if "add" in chain:
        inputs.append(oh.make_tensor_value_info("z", t, list(z_shape)))
        nodes.append(oh.make_node("Add", ["n", "z"], ["s"]))
        last = "s"
    if "relu" in chain:
        nodes.append(oh.make_node("Relu", [last], ["r"]))
        last = "r"
    nodes.append(oh.make_node("Identity", [last], ["y"]))
    graph = oh.make_graph(nodes, "g", inputs, [oh.make_tensor_value_info("y", t, None)], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def bn_reference(chain, x, w, params, z):
    t = lambda a: torch.from_numpy(a.astype(np.float64))
    scale, bias, mean, var = (t(p) for p in params)
    y = torch.nn.functional.conv2d(t(x), t(w), padding=1)
    y = torch.nn.functional.batch_norm(y, mean, var, scale, bias, training=False, eps=1e-3)
    if "add" in chain:
        y = y + t(z)
    if "relu" in chain:
        y = torch.relu(y)
    return y.numpy()


def bn_params(rs, m, dtype, k=1.0):
    return [(rs.randn(m) * k).astype(dtype), rs.randn(m).astype(dtype), rs.randn(m).astype(dtype),
            (rs.rand(m) + 0.5).astype(dtype)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("chain", ["", "relu", "add_relu"])
def test_batchnorm_folded_into_conv(dtype, chain):
    rs = np.random.RandomState(5)
    x = rs.randn(2, 5, 9, 8).astype(dtype)
    w = (rs.randn(16, 5, 3, 3) * 0.3).astype(dtype)
    params = bn_params(rs, 16, dtype)
    z = rs.randn(2, 16, 9, 8).astype(dtype)
    feeds = {"x": x, "z": z} if "add" in chain else {"x": x}
    model = bn_model(dtype, chain, x.shape, w, params, z.shape)
    fused, types = run(model, feeds, ["y"], popart.Patterns())
    assert types.count("ConvFused") == 1 and not any(t.startswith(("BatchNormalization", "Relu", "Add"))
                                                     for t in types), types
    plain, plain_types = run(model, feeds, ["y"], no_fusion())
    assert "BatchNormalization" in plain_types
    rtol, atol = TOL[dtype]
    ref = bn_reference(chain, x, w, params, z)
    np.testing.assert_allclose(fused["y"].astype(np.float64), ref, rtol=rtol, atol=atol)
    np.testing.assert_allclose(fused["y"], plain["y"], rtol=rtol, atol=atol)


def test_folded_batchnorm_follows_written_statistics():
    """The normalisation is folded at run time: new running statistics from the host take effect at
    weightsFromHost, as with a separate BatchNormalization."""
    rs = np.random.RandomState(6)
    x = rs.randn(2, 8, 6, 6).astype(np.float32)
    w = (rs.randn(8, 8, 3, 3) * 0.3).astype(np.float32)
    params = bn_params(rs, 8, np.float32)
    s = popart.InferenceSession(bn_model(np.float32, "relu", x.shape, w, params), popart.DataFlow(1, ["y"]),
                                popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_allclose(out["y"], bn_reference("relu", x, w, params, None), rtol=1e-4, atol=1e-4)
    new = bn_params(rs, 8, np.float32, k=3.0)
    s.writeWeights(popart.PyWeightsIO(dict(zip(["scale", "bias", "mean", "var"], new))))
    s.weightsFromHost()
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_allclose(out["y"], bn_reference("relu", x, w, new, None), rtol=1e-4, atol=1e-4)


def test_training_batchnorm_is_not_folded():
    rs = np.random.RandomState(7)
    x = rs.randn(2, 3, 6, 6).astype(np.float32)
    nodes = [oh.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             oh.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"])]
    inits = [onnx.numpy_helper.from_array(rs.randn(4, 3, 3, 3).astype(np.float32), "w")] + [
        onnx.numpy_helper.from_array(p, n) for p, n in zip(bn_params(rs, 4, np.float32), ["scale", "bias", "mean", "var"])]
    out, types = train_step(loss_model(nodes, x, "n", inits), ["n"], x)
    assert "ConvFused" not in types and any(t.startswith("BatchNormalization") for t in types)
