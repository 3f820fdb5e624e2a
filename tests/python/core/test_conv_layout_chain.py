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
