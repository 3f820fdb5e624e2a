"""AddArgGradToIdentity pattern: the gradient of an Add input of the output's shape is dY itself, so the
backward graph has no AddArg0Grad/AddArg1Grad copying it (broadcast inputs keep their reduction, and a
weight's own gradient keeps its op); gradients match torch's."""

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch

import popart

from _pattern_step import train as step


def model(full_w):
    """y = (x * a + b) + (x * c) with b [D] (broadcast) or full; loss = sum(y * y)."""
    nodes = [oh.make_node("Mul", ["x", "a"], ["xa"]), oh.make_node("Add", ["xa", "b"], ["s"]),
             oh.make_node("Mul", ["x", "c"], ["xc"]), oh.make_node("Add", ["s", "xc"], ["y"]),
             oh.make_node("Mul", ["y", "y"], ["y2"]), oh.make_node("ReduceSum", ["y2"], ["loss"], keepdims=0)]
    rs = np.random.RandomState(0)
    shape_b = [5, 8] if full_w else [8]
    inits = {"a": rs.randn(8).astype(np.float32), "b": rs.randn(*shape_b).astype(np.float32),
             "c": rs.randn(8).astype(np.float32)}
    graph = oh.make_graph(nodes, "g", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [5, 8])],
                          [oh.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, [])],
                          initializer=[onnx.numpy_helper.from_array(v, k) for k, v in inits.items()])
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 11)]).SerializeToString(), inits


GRADS = ["Gradient___a", "Gradient___b", "Gradient___c", "Gradient___x"]


def train(proto, x, patterns=None):
    return step(proto, x, GRADS, patterns)


@pytest.mark.parametrize("full_w", [False, True])
def test_add_gradients_without_reduction_are_views(full_w):
    proto, w = model(full_w)
    x = np.random.RandomState(1).randn(5, 8).astype(np.float32)
    out, types = train(proto, x)
    # b [8] needs a reduction (AddArg1Grad of the first Add); a full-shape b is a weight: its gradient op stays
    assert types.count("AddArg1Grad") == 1 and "AddArg0Grad" not in types, types
    plain_patterns = popart.Patterns()
    plain_patterns.enablePattern("AddArgGradToIdentity", False)
    _, plain_types = train(proto, x, plain_patterns)
    assert plain_types.count("AddArg0Grad") == 2 and plain_types.count("AddArg1Grad") == 2, plain_types
    t = {k: torch.tensor(v.astype(np.float64), requires_grad=True) for k, v in {**w, "x": x}.items()}
    y = t["x"] * t["a"] + t["b"] + t["x"] * t["c"]
    loss = (y * y).sum()
    loss.backward()
    np.testing.assert_allclose(float(out["loss"]), loss.item(), rtol=1e-5)
    for k in ("a", "b", "c", "x"):
        np.testing.assert_allclose(out["Gradient___" + k], t[k].grad.numpy(), rtol=1e-5, atol=1e-5, err_msg=k)
