"""LayerNormFusion pattern: layer normalisation written out in element-wise ops (as torch exports it before
opset 17, or by hand) becomes one LayerNormalization op in inference sessions."""
import io
import json
import re

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart
from core._training_graph import train_step

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16, np.float64: onnx.TensorProto.DOUBLE}
TOL = {np.float32: (1e-4, 1e-4), np.float16: (1e-2, 2e-2), np.float64: (1e-9, 1e-9)}
CHAIN = {"ReduceMean", "Sub", "Mul", "Pow", "Add", "Sqrt", "Div"}


def run(model, x, anchors, patterns=None, training=False):
    s = popart.InferenceSession(model, popart.DataFlow(1, list(anchors)), popart.DeviceManager().createCpuDevice(),
                                patterns=patterns or popart.Patterns())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    types = [re.sub(r"(Lhs|Rhs)?Inplace$", "", op["type"]) for op in json.loads(s.getSerializedGraph())["maingraph"]]
    return out, types


def explicit_model(dtype, shape, gamma, beta, square="mul", anchors=("y",)):
    """x -> the written-out LayerNorm over the last axis (d * d or d ^ 2; beta optional) -> y."""
    t = TYPES[dtype]
    const = lambda name, v: oh.make_node("Constant", [], [name], value=onnx.numpy_helper.from_array(np.array(v, dtype), name))
    nodes = [const("eps", 1e-5), const("two", 2.0),
             oh.make_node("ReduceMean", ["x"], ["m"], axes=[-1]), oh.make_node("Sub", ["x", "m"], ["d"]),
             oh.make_node("Mul", ["d", "d"], ["q"]) if square == "mul" else oh.make_node("Pow", ["d", "two"], ["q"]),
             oh.make_node("ReduceMean", ["q"], ["v"], axes=[-1]), oh.make_node("Add", ["v", "eps"], ["ve"]),
             oh.make_node("Sqrt", ["ve"], ["s"]), oh.make_node("Div", ["d", "s"], ["n"]),
             oh.make_node("Mul", ["n", "gamma"], ["g"])]
    inits = [onnx.numpy_helper.from_array(gamma, "gamma")]
    last = "g"
    if beta is not None:
        nodes.append(oh.make_node("Add", ["g", "beta"], ["b"]))
        inits.append(onnx.numpy_helper.from_array(beta, "beta"))
        last = "b"
    nodes.append(oh.make_node("Identity", [last], ["y"]))
    graph = oh.make_graph(nodes, "ln", [oh.make_tensor_value_info("x", t, list(shape))],
                          [oh.make_tensor_value_info(a, t, None) for a in anchors], initializer=inits)
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def reference(x, gamma, beta):
    t = lambda a: torch.from_numpy(a.astype(np.float64))
    y = torch.nn.functional.layer_norm(t(x), (x.shape[-1],), t(gamma), None if beta is None else t(beta), eps=1e-5)
    return y.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("square,with_beta", [("mul", True), ("pow", True), ("mul", False)])
def test_fused_matches_reference_and_unfused(dtype, square, with_beta):
    rs = np.random.RandomState(0)
    x = (rs.randn(2, 5, 48) * 3 + 1).astype(dtype)
    gamma, beta = rs.randn(48).astype(dtype), rs.randn(48).astype(dtype) if with_beta else None
    model = explicit_model(dtype, x.shape, gamma, beta, square)
    fused, types = run(model, x, ["y"])
    assert "LayerNormalization" in types and not CHAIN & set(types), types
    p = popart.Patterns()
    p.enablePattern("LayerNormFusion", False)
    plain, plain_types = run(model, x, ["y"], p)
    assert "LayerNormalization" not in plain_types and "ReduceMean" in plain_types
    assert fused["y"].dtype == dtype
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(fused["y"].astype(np.float64), reference(x, gamma, beta), rtol=rtol, atol=atol)
    np.testing.assert_allclose(fused["y"], plain["y"], rtol=rtol, atol=atol)


def test_torch_layernorm_export_becomes_one_op():
    torch.manual_seed(0)
    model = torch.nn.LayerNorm(32).eval()
    with torch.no_grad():
        model.weight.uniform_(0.5, 1.5)
        model.bias.uniform_(-1, 1)
    x = torch.randn(3, 7, 32)
    f = io.BytesIO()
    torch.onnx.export(model, (x,), f, opset_version=11, dynamo=False, input_names=["x"], output_names=["y"])
    out, types = run(f.getvalue(), x.numpy(), ["y"])
    assert types == ["LayerNormalization"], types
    with torch.no_grad():
        np.testing.assert_allclose(out["y"], model(x).numpy(), rtol=1e-4, atol=1e-5)


def test_anchored_intermediate_is_not_fused():
    rs = np.random.RandomState(1)
    x, gamma, beta = rs.randn(4, 16).astype(np.float32), rs.randn(16).astype(np.float32), rs.randn(16).astype(np.float32)
    out, types = run(explicit_model(np.float32, x.shape, gamma, beta, anchors=("y", "d")), x, ["y", "d"])
    assert "LayerNormalization" not in types and "ReduceMean" in types
    np.testing.assert_allclose(out["d"], x - x.mean(-1, keepdims=True), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["y"], reference(x, gamma, beta), rtol=1e-4, atol=1e-4)


def test_mean_over_another_axis_is_not_fused():
    rs = np.random.RandomState(2)
    x, gamma = rs.randn(4, 16).astype(np.float32), rs.randn(16).astype(np.float32)
    model = onnx.load_from_string(explicit_model(np.float32, x.shape, gamma, None))
    for n in model.graph.node:
        if n.op_type == "ReduceMean" and n.input[0] == "x":
            n.attribute[0].ints[:] = [0]  # m = mean over the rows: not a layer norm
    out, types = run(model.SerializeToString(), x, ["y"])
    assert "LayerNormalization" not in types
    d = x - x.mean(0, keepdims=True)
    ref = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5) * gamma
    np.testing.assert_allclose(out["y"], ref, rtol=1e-4, atol=1e-4)


def test_training_fuses_without_beta():
    """In a training graph the chain (here without beta) becomes one LayerNormalization as well."""
    rs = np.random.RandomState(3)
    x, gamma = rs.randn(4, 16).astype(np.float32), rs.randn(16).astype(np.float32)
    model = onnx.load_from_string(explicit_model(np.float32, x.shape, gamma, None))
    model.graph.node.append(oh.make_node("ReduceSum", ["y"], ["total"], keepdims=0))
    model.graph.node.append(oh.make_node("IdentityLoss", ["total"], ["loss"], domain="ai.graphcore", reduction=0))
    model.opset_import.append(oh.make_opsetid("ai.graphcore", 1))
    out, types = train_step(model, ["y"], x)
    assert "LayerNormalization" in types and "ReduceMean" not in types
    np.testing.assert_allclose(out["y"], reference(x, gamma, None), rtol=1e-4, atol=1e-4)
