"""GeluFusion pattern: in training graphs the five ops of an erf GELU (both forms torch exports) become one
ai.graphcore GeluErf op, so autodiff builds one GeluErfGrad; losses and gradients match torch's."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart

from _pattern_step import train

TYPES = {np.float32: onnx.TensorProto.FLOAT, np.float16: onnx.TensorProto.FLOAT16}


def gelu_model(dtype, form, shape, w, anchors=()):
    """y = GELU(x * w) in `form` ("half_first": (x * 0.5) * (1 + erf(x / sqrt 2)) with Div,
    "half_last": (x * (1 + erf(x * (1/sqrt 2)))) * 0.5); loss = sum(y)."""
    t = TYPES[dtype]
    consts = [oh.make_node("Constant", [], [n], value=onnx.numpy_helper.from_array(np.array(v, dtype), n))
              for n, v in (("half", 0.5), ("rsqrt2", 1 / np.sqrt(2)), ("sqrt2", np.sqrt(2)), ("one", 1.0))]
    nodes = consts + [oh.make_node("Mul", ["x", "w"], ["h"])]
    if form == "half_first":
        nodes += [oh.make_node("Mul", ["h", "half"], ["g0"]), oh.make_node("Div", ["h", "sqrt2"], ["g1"]),
                  oh.make_node("Erf", ["g1"], ["g2"]), oh.make_node("Add", ["one", "g2"], ["g3"]),
                  oh.make_node("Mul", ["g0", "g3"], ["y"])]
    else:
        nodes += [oh.make_node("Mul", ["rsqrt2", "h"], ["g1"]), oh.make_node("Erf", ["g1"], ["g2"]),
                  oh.make_node("Add", ["g2", "one"], ["g3"]), oh.make_node("Mul", ["h", "g3"], ["g4"]),
                  oh.make_node("Mul", ["g4", "half"], ["y"])]
    nodes.append(oh.make_node("ReduceSum", ["y"], ["loss"], keepdims=0))
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", t, list(shape))],
                          [oh.make_tensor_value_info("loss", t, [])],
                          initializer=[onnx.numpy_helper.from_array(w, "w")])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString()


def torch_reference(x, w):
    tx, tw = torch.tensor(x, dtype=torch.float64), torch.tensor(w, dtype=torch.float64, requires_grad=True)
    loss = torch.nn.functional.gelu(tx * tw).sum()
    loss.backward()
    return loss.item(), tw.grad.numpy()


@pytest.mark.parametrize("form", ["half_first", "half_last"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_gelu_chain_becomes_one_op(form, dtype):
    rs = np.random.RandomState(0)
    x = (rs.randn(6, 40) * 2).astype(dtype)
    w = (1 + 0.1 * rs.randn(40)).astype(dtype)
    out, types = train(gelu_model(dtype, form, x.shape, w), x, ["Gradient___w"])
    assert "GeluErf" in types and "GeluErfGrad" in types
    assert not {"Erf", "ErfGrad", "Div"} & set(types), types
    assert types.count("Mul") == 1, types  # only x * w is left
    loss, grad = torch_reference(x.astype(np.float64), w.astype(np.float64))
    rtol, atol = (1e-5, 1e-4) if dtype == np.float32 else (1e-2, 0.5)
    assert out["loss"].dtype == dtype and out["Gradient___w"].dtype == dtype
    np.testing.assert_allclose(float(out["loss"]), loss, rtol=rtol, atol=atol)
    np.testing.assert_allclose(out["Gradient___w"].astype(np.float64), grad, rtol=rtol * 10, atol=atol)


def test_gelu_fusion_disabled_keeps_the_chain():
    rs = np.random.RandomState(1)
    x, w = rs.randn(4, 16).astype(np.float32), (1 + 0.1 * rs.randn(16)).astype(np.float32)
    model = gelu_model(np.float32, "half_first", x.shape, w)
    patterns = popart.Patterns()
    patterns.enablePattern("GeluFusion", False)
    plain, types = train(model, x, ["Gradient___w"], patterns)
    assert "Erf" in types and "GeluErf" not in types
    fused, _ = train(model, x, ["Gradient___w"])
    np.testing.assert_allclose(fused["Gradient___w"], plain["Gradient___w"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fused["loss"], plain["loss"], rtol=1e-6)


def test_gelu_with_an_anchored_intermediate_is_not_fused():
    rs = np.random.RandomState(2)
    x, w = rs.randn(4, 16).astype(np.float32), (1 + 0.1 * rs.randn(16)).astype(np.float32)
    out, types = train(gelu_model(np.float32, "half_last", x.shape, w), x, ["g2"])
    assert "Erf" in types and "GeluErf" not in types
    h = x.astype(np.float64) * w
    np.testing.assert_allclose(out["g2"], torch.erf(torch.tensor(h / np.sqrt(2))).numpy(), rtol=1e-5, atol=1e-6)


def test_inference_graphs_are_left_alone():
    rs = np.random.RandomState(3)
    x, w = rs.randn(4, 16).astype(np.float32), (1 + 0.1 * rs.randn(16)).astype(np.float32)
    s = popart.InferenceSession(gelu_model(np.float32, "half_first", x.shape, w), popart.DataFlow(1, ["loss"]),
                                popart.DeviceManager().createCpuDevice())
    types = [op["type"] for op in json.loads(s.getSerializedGraph())["maingraph"]]
    assert "GeluErf" not in types
